#!/usr/bin/env python3
"""`tessera serve` against hostile pages in a real browser: headless Chromium driven by Selenium (Debian's
chromium, chromium-driver and python3-selenium).

    Scripts/serve-hostile-page-test.py URL GRAPH

URL is the address `tessera serve` printed (with its token), GRAPH the file it serves. The script opens the
real page first (the browser then holds the token's cookie, as a user's does), then pages of other origins
that try what a malicious page would: read the state, set overrides and write them to the file (fetch,
no-cors fetch, a form posted into a hidden frame), open the WebSocket, load a thumbnail as an image, frame
the page. They run twice: from a page of another site (evil.test, mapped to 127.0.0.1) and from a page on
another port of 127.0.0.1 (same site, so SameSite cookies go along). A DNS-rebinding name for the server
(rebind.test) is tried with the token itself. Then it checks, with the token, that the server's overrides
are still empty and the graph file unchanged.

The same attacks are also aimed at a stand-in server on another port that accepts everything and counts
what arrives: they must reach it, so the browser does send them and it is tessera serve that refuses them
(without the stand-in, a browser that blocked them on its own would make this test pass vacuously).

Exits 0 when every attack fails; 77 when Chromium cannot start (the caller skips); 1 with the reason.
"""
import http.server
import json
import pathlib
import re
import socketserver
import sys
import threading
import time
import urllib.request

import headless_chromium

EVIL = """<!doctype html><meta charset="utf-8"><title>evil</title>
<iframe name="sink" style="display:none"></iframe>
<form id="form" method="POST" enctype="text/plain" target="sink" action="TARGET/api/overrides">
  <input name='{"soft.sigma": "9", "x": "' value='"}'>
</form>
<script>
const target = "TARGET";
window.results = {};
const note = (name, value) => { window.results[name] = value; };
async function attack() {
  try { const r = await fetch(target + "/api/state"); note("readState", r.ok ? await r.text() : "status " + r.status); }
  catch (e) { note("readState", "blocked"); }
  try { await fetch(target + "/api/overrides", {method: "POST", mode: "no-cors", body: '{"soft.sigma": "7"}'});
        note("postOverrides", "sent"); } catch (e) { note("postOverrides", "blocked"); }
  try { await fetch(target + "/api/save", {method: "POST", mode: "no-cors", body: "{}"}); note("postSave", "sent"); }
  catch (e) { note("postSave", "blocked"); }
  document.getElementById("form").submit();
  note("form", "sent");
  await new Promise(resolve => {
    const image = new Image();
    image.onload = () => { note("thumbnail", "loaded"); resolve(); };
    image.onerror = () => { note("thumbnail", "refused"); resolve(); };
    image.src = target + "/thumbs/1/0.png";
  });
  await new Promise(resolve => {
    let ws;
    try { ws = new WebSocket(target.replace("http:", "ws:") + "/events"); }
    catch (e) { note("webSocket", "blocked"); resolve(); return; }
    ws.onmessage = event => { note("webSocket", "message " + event.data); ws.close(); resolve(); };
    ws.onerror = () => { if (!("webSocket" in window.results)) note("webSocket", "refused"); resolve(); };
    setTimeout(() => { if (!("webSocket" in window.results)) note("webSocket", "no message"); resolve(); }, 3000);
  });
  note("done", true);
}
attack();
</script>"""


class StandIn(http.server.BaseHTTPRequestHandler):
    """A permissive server: answers everything, counts what arrives, serves the evil page at /evil."""
    seen = []
    page = ""

    def log_message(self, *args):
        pass

    def answer(self, body, kind="text/plain"):
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path.startswith("/evil"):
            self.answer(StandIn.page.replace("TARGET", self.path.split("target=", 1)[1]), "text/html")
            return
        StandIn.seen.append(("GET", self.path))
        self.answer("{}")

    def do_POST(self):
        length = int(self.headers.get("Content-Length", 0))
        self.rfile.read(length)
        StandIn.seen.append(("POST", self.path))
        self.answer("{}")


def main():
    url, graph = sys.argv[1], pathlib.Path(sys.argv[2])
    match = re.match(r"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+)$", url)
    if not match:
        raise SystemExit(f"FAIL: not a tessera serve address: {url}")
    port, token = match.group(1), match.group(2)
    original = graph.read_text()
    StandIn.page = EVIL
    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), StandIn)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    evil_port = httpd.server_address[1]

    driver = headless_chromium.start("--host-resolver-rules=MAP evil.test 127.0.0.1, MAP rebind.test 127.0.0.1")
    failures = []
    try:
        driver.get(url)  # the user's own page: the browser now holds the token's cookie
        deadline = time.monotonic() + 30
        while int(driver.execute_script("return Number(document.body.dataset.version || 0)")) < 1:
            if time.monotonic() > deadline:
                raise SystemExit("FAIL: the real page did not render")
            time.sleep(0.1)
        print("ok: the user's page renders, and holds the cookie")

        def attack(page_origin, target):
            driver.get(f"{page_origin}/evil?target={target}")
            deadline = time.monotonic() + 20
            while not driver.execute_script("return window.results && window.results.done"):
                if time.monotonic() > deadline:
                    raise SystemExit(f"FAIL: the hostile page from {page_origin} did not finish")
                time.sleep(0.1)
            time.sleep(0.5)  # the form's post
            return driver.execute_script("return window.results")

        for name, origin in [("another site", f"http://evil.test:{evil_port}"),
                             ("another port of 127.0.0.1", f"http://127.0.0.1:{evil_port}")]:
            # Control: aimed at the stand-in, the attacks arrive.
            StandIn.seen.clear()
            attack(origin, f"http://localhost:{evil_port}")
            arrived = {path for _, path in StandIn.seen}
            for path in ["/api/overrides", "/api/save", "/thumbs/1/0.png", "/api/state"]:
                if path not in arrived:
                    failures.append(f"control ({name}): the browser did not send {path}, so this test proves nothing")
            # Aimed at tessera serve, they fail.
            results = attack(origin, f"http://127.0.0.1:{port}")
            print(f"   from {name}: {json.dumps(results)}")
            if results.get("readState") not in ("blocked",) and "version" in str(results.get("readState")):
                failures.append(f"{name}: the page read the state")
            if results.get("thumbnail") != "refused":
                failures.append(f"{name}: a thumbnail loaded as an image")
            if str(results.get("webSocket", "")).startswith("message"):
                failures.append(f"{name}: the WebSocket delivered {results['webSocket']}")
            print(f"ok: a page from {name} can neither read, change nor listen")

        # DNS rebinding, with the token itself: the Host names another site.
        driver.get(f"http://rebind.test:{port}/?token={token}")
        text = driver.execute_script("return document.body.innerText")
        if "not to Host 'rebind.test:" not in text:
            failures.append(f"rebinding: the page answered: {text[:200]}")
        else:
            print("ok: a rebinding name is refused, token or not")

        request = urllib.request.Request(f"http://127.0.0.1:{port}/api/state", headers={"X-Tessera-Token": token})
        state = json.load(urllib.request.urlopen(request))
        if state["overrides"]:
            failures.append(f"the server took overrides from a hostile page: {state['overrides']}")
        if graph.read_text() != original:
            failures.append("the graph file was written")
        if not failures:
            print("ok: no override applied, the file unchanged")
    finally:
        driver.quit()
        httpd.shutdown()
    if failures:
        raise SystemExit("FAIL: " + "; ".join(failures))
    print("hostile page test passed")


if __name__ == "__main__":
    main()
