#!/usr/bin/env python3
"""How long `tessera serve` takes to show a saved graph: starts it on GRAPH, edits the graph file's
gaussianBlur sigma N times, and prints for each edit the time from the write to the new state being
ready (polled every 10 ms) and the render time the server reports.

    Scripts/serve-rerender-time.py TESSERA GRAPH [EDITS]

The graph must have a line with `sigma: NUMBER`. Talks to 127.0.0.1 only.
"""
import json
import re
import socket
import subprocess
import sys
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def state(port):
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(f"http://127.0.0.1:{port}/api/state", timeout=30) as response:
        return json.load(response)


def wait_for(port, version, deadline=120):
    start = time.monotonic()
    while time.monotonic() - start < deadline:
        try:
            current = state(port)
            if current["version"] > version and not current.get("rendering"):
                return current
        except OSError:
            pass
        time.sleep(0.01)
    sys.exit("no new render within %d s" % deadline)


def main():
    tessera, graph = sys.argv[1], sys.argv[2]
    edits = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    port = free_port()
    server = subprocess.Popen([tessera, "serve", graph, "--port", str(port)], stdout=subprocess.DEVNULL)
    try:
        first = wait_for(port, 0)
        print(f"first render: {first['milliseconds']:.0f} ms (preview shrink {first.get('previewShrink')})")
        text = open(graph).read()
        version = first["version"]
        for edit in range(edits):
            sigma = 2 + (edit + 1) * 0.5
            changed = re.sub(r"sigma: [0-9.]+", f"sigma: {sigma}", text, count=1)
            written = time.monotonic()
            with open(graph, "w") as file:
                file.write(changed)
            current = wait_for(port, version)
            version = current["version"]
            print(f"edit {edit + 1}: shown {1000 * (time.monotonic() - written):.0f} ms after saving, "
                  f"render {current['milliseconds']:.0f} ms")
        with open(graph, "w") as file:
            file.write(text)
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
