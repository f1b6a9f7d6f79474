#!/usr/bin/env python3
"""`tessera serve` in a real browser: headless Chromium driven by Selenium (Debian's chromium,
chromium-driver and python3-selenium).

    Scripts/serve-browser-test.py URL GRAPH [--screenshots DIR]

GRAPH is the file the server at URL serves; it must contain the line `  soft: { ... sigma: 2 }` of
Tests/TesseraCLITests/ServeTests.swift's graph. The script opens the page, checks that every thumbnail
loads (an img with a non-zero natural size), edits the file on disk and waits for the page to show the
new render, breaks the file and waits for the error at its line, then fixes it. With --screenshots it
saves serve.png and serve-error.png there (the README's). Exits 0 when all holds; 77 when Chromium
cannot start (the caller skips); 1 with the reason otherwise.
"""
import argparse
import pathlib
import sys
import time

import headless_chromium
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("graph", type=pathlib.Path)
    parser.add_argument("--screenshots", type=pathlib.Path)
    parser.add_argument("--timeout", type=float, default=20)
    args = parser.parse_args()

    driver = headless_chromium.start("--window-size=1440,1000", "--hide-scrollbars")
    started = time.monotonic()
    wait = WebDriverWait(driver, args.timeout, poll_frequency=0.1, ignored_exceptions=[StaleElementReferenceException])

    def step(name, condition):
        began = time.monotonic()
        try:
            result = wait.until(lambda d: condition())
        except TimeoutException:
            state = driver.execute_script("return document.body.innerText.slice(0, 3000)")
            raise SystemExit(f"FAIL: {name} (waited {args.timeout} s); the page shows:\n{state}")
        print(f"ok: {name} ({time.monotonic() - began:.2f} s)")
        return result

    def version():
        return int(driver.execute_script("return Number(document.body.dataset.version || 0)"))

    def thumbnails():
        """The thumbnails' addresses once all have loaded with a size, else None."""
        return driver.execute_script("""
            const images = [...document.querySelectorAll('#nodes img')];
            if (!images.length || !images.every(i => i.complete && i.naturalWidth > 0 && i.naturalHeight > 0))
                return null;
            return images.map(i => i.getAttribute('src'));
        """)

    def card_text(node):
        return driver.execute_script(
            "const c = document.querySelector(`.card[data-node='${arguments[0]}']`); return c ? c.innerText : ''",
            node)

    def shoot(name):
        if args.screenshots:
            args.screenshots.mkdir(parents=True, exist_ok=True)
            driver.set_window_size(1440, 1600)
            time.sleep(0.5)
            height = driver.execute_script("return document.documentElement.scrollHeight")
            driver.set_window_size(1440, min(max(height, 800), 1600))
            time.sleep(0.5)
            driver.save_screenshot(str(args.screenshots / name))
            driver.set_window_size(1440, 1000)
            print(f"saved {args.screenshots / name}")

    try:
        driver.get(args.url)
        step("the page renders", lambda: version() >= 1)
        first = step("every thumbnail loads with a non-zero size", thumbnails)
        soft_before = card_text("soft")
        print(f"   {len(first)} thumbnails; soft: {soft_before.splitlines()[:3]}")
        if args.screenshots:
            time.sleep(0.3)
            shoot("serve.png")

        text = args.graph.read_text()
        assert "sigma: 2 " in text, "the graph's soft node sets sigma: 2"
        before = version()
        args.graph.write_text(text.replace("sigma: 2 ", "sigma: 6 "))
        step("an edit on disk renders again and the page follows",
             lambda: version() > before and (thumbnails() or first) != first and thumbnails())

        broken = text.replace("sigma: 2 ", "sigmaa: 6")
        line = next(i + 1 for i, l in enumerate(broken.splitlines()) if "sigmaa" in l)
        args.graph.write_text(broken)
        # The list is drawn again as the page polls: an element found may be replaced before it is read.
        message = step("a broken file shows its error",
                       lambda: next((e.text for e in driver.find_elements(By.CSS_SELECTOR, "#problems li.error")), None))
        assert f"line {line}," in message and "sigmaa" in message, message
        row = step(f"the file's line {line} is marked",
                   lambda: driver.find_elements(By.CSS_SELECTOR, f"#source .row.error[data-line='{line}']"))
        assert "sigmaa" in row[0].text, row[0].text
        print(f"   {message}")
        shoot("serve-error.png")

        before = version()
        args.graph.write_text(text.replace("sigma: 2 ", "sigma: 3 "))
        step("the fixed file renders with no error", lambda: version() > before
             and not driver.find_elements(By.CSS_SELECTOR, "#problems li.error") and thumbnails())
        print(f"browser test passed in {time.monotonic() - started:.1f} s")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
