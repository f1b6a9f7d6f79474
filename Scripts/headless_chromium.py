"""Debian's Chromium, headless, through Selenium, as the serve browser tests start it. A script that
imports this exits with 77 (skipped, saying why) when python3-selenium is missing or Chromium does not
start."""
import sys

try:
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service
except ImportError as error:
    print(f"skip: python3-selenium is not installed ({error})")
    sys.exit(77)


def start(*flags):
    """A headless Chromium with `flags` added to the ones every test needs."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-proxy-server",
                 *flags]:
        options.add_argument(flag)
    try:
        return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    except WebDriverException as error:
        print(f"skip: Chromium does not start: {error.msg}")
        sys.exit(77)
