/// The preview page: plain HTML, CSS and JavaScript, served by the binary (nothing to install or build).
/// It reads `/api/state`, draws the graph, the nodes' thumbnails and controls and the file's problems,
/// and asks again whenever the WebSocket `/events` announces a new render.
enum Page {
    /// The page for a server whose token is `token`; its script runs under a Content-Security-Policy that
    /// allows only the script carrying `nonce`.
    static func html(token: String, nonce: String) -> String {
        template.replacingOccurrences(of: "{{TOKEN}}", with: token).replacingOccurrences(of: "{{NONCE}}", with: nonce)
    }

    private static let template = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>tessera serve</title>
        <style>
        :root { --ink: #1d2330; --muted: #6b7385; --line: #e3e6ec; --bg: #f6f7f9; --card: #fff;
          --accent: #2f6fde; --bad: #c62f3a; --bad-bg: #fdecee; --warn: #9a6400; --warn-bg: #fff6e0; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
          color: var(--ink); background: var(--bg); }
        header { display: flex; align-items: center; gap: 14px; padding: 10px 18px; background: var(--card);
          border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 2; }
        header h1 { font-size: 16px; margin: 0; font-weight: 600; }
        header h1 span { color: var(--muted); font-weight: 400; }
        #status { color: var(--muted); font-size: 13px; flex: 1; }
        #dot { width: 9px; height: 9px; border-radius: 50%; background: #bbb; display: inline-block;
          margin-right: 6px; vertical-align: 1px; }
        #dot.on { background: #2fa35a; }
        button, select { font: inherit; border: 1px solid var(--line); background: var(--card); border-radius: 6px;
          padding: 5px 12px; cursor: pointer; }
        button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
        button:disabled { opacity: .45; cursor: default; }
        main { display: grid; grid-template-columns: minmax(320px, 38%) 1fr; gap: 18px; padding: 18px; }
        section.panel { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px;
          margin-bottom: 18px; }
        section.panel h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted);
          margin: 0 0 8px; font-weight: 600; }
        #graph svg { display: block; margin: 0 auto; max-width: 100%; height: auto; max-height: 460px; }
        #problems { list-style: none; margin: 0 0 8px; padding: 0; }
        #problems li { padding: 6px 10px; border-radius: 6px; margin-bottom: 6px; font-size: 13px; }
        #problems li.error { background: var(--bad-bg); color: var(--bad); }
        #problems li.warning { background: var(--warn-bg); color: var(--warn); }
        #problems li b { font-family: ui-monospace, Menlo, monospace; font-weight: 600; }
        #source { font: 12.5px/1.5 ui-monospace, "DejaVu Sans Mono", Menlo, monospace; overflow-x: auto;
          max-height: 60vh; overflow-y: auto; }
        #source .row { display: flex; white-space: pre-wrap; overflow-wrap: anywhere; }
        #source .ln { color: #aab0bd; width: 3.2em; text-align: right; padding-right: 1em; flex: none;
          user-select: none; }
        #source .row.error { background: var(--bad-bg); }
        #source .row.warning { background: var(--warn-bg); }
        #source .row.msg { color: var(--bad); font-weight: 600; }
        #source .row.msg.warning { color: var(--warn); background: none; }
        #nodes { display: grid; grid-template-columns: repeat(auto-fill, minmax(250px, 1fr)); gap: 14px;
          align-content: start; align-items: start; }
        #nodes.stale .card { opacity: .55; }
        .card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; overflow: hidden; }
        .card .head { display: flex; align-items: baseline; gap: 8px; padding: 8px 12px; border-bottom: 1px solid var(--line); }
        .card .name { font-weight: 600; }
        .card .op { color: var(--muted); font-size: 12px; font-family: ui-monospace, Menlo, monospace; }
        .card .time { margin-left: auto; color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
        .thumb { background: repeating-conic-gradient(#eceef2 0 25%, #fff 0 50%) 0 0 / 16px 16px;
          display: flex; justify-content: center; align-items: center; min-height: 120px; }
        .thumb img, .thumb svg { display: block; max-width: 100%; max-height: 256px; }
        .thumb img.small { width: 128px; image-rendering: pixelated; }
        .port { font-size: 11px; color: var(--muted); padding: 3px 12px; }
        .note { padding: 14px 12px; color: var(--muted); font-size: 13px; }
        .number { font-size: 28px; padding: 18px; text-align: center; }
        details { padding: 4px 12px 8px; font-size: 12px; }
        details pre { max-height: 160px; overflow: auto; margin: 4px 0 0; background: var(--bg); padding: 6px;
          border-radius: 6px; }
        .controls { padding: 6px 12px 10px; border-top: 1px solid var(--line); }
        .control { display: grid; grid-template-columns: 82px 1fr 64px; align-items: center; gap: 8px;
          font-size: 12px; margin-top: 4px; }
        .control label { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
        .control label.set { font-weight: 600; }
        .control input[type=number] { width: 64px; font: inherit; padding: 2px 4px; border: 1px solid var(--line);
          border-radius: 4px; }
        .control input[type=range] { width: 100%; }
        .control input[type=color] { width: 100%; height: 22px; border: none; padding: 0; background: none; }
        .control .unit { color: var(--muted); }
        #empty { color: var(--muted); padding: 30px; }
        </style>
        </head>
        <body>
        <header>
          <h1>tessera serve <span id="file"></span></h1>
          <select id="graphs" title="Graph files in the served folder"></select>
          <div id="status"><i id="dot"></i><span id="statustext">connecting…</span></div>
          <button id="reset" disabled title="Forget the page's changes">Reset</button>
          <button id="save" class="primary" disabled title="Write the changed values into the graph file">
            Write to file</button>
        </header>
        <main>
          <div>
            <section class="panel"><h2>Graph</h2><div id="graph"></div></section>
            <section class="panel"><h2>File</h2><ul id="problems"></ul><div id="source"></div></section>
          </div>
          <div id="nodes"></div>
        </main>
        <script nonce="{{NONCE}}">
        "use strict";
        // The server's token: sent with every request (the cookie carries it too), and dropped from the
        // address bar so that it is not copied around or kept in the history.
        const token = "{{TOKEN}}";
        history.replaceState(null, "", location.pathname);
        const api = (path, options = {}) =>
          fetch(path, Object.assign({}, options, {headers: Object.assign({"X-Tessera-Token": token}, options.headers)}));
        let state = null, overrides = {}, shape = "", timer = null;
        const $ = id => document.getElementById(id);
        const el = (tag, attrs = {}, ...kids) => {
          const node = document.createElement(tag);
          for (const [k, v] of Object.entries(attrs)) {
            if (k === "class") node.className = v; else if (k === "text") node.textContent = v; else node.setAttribute(k, v);
          }
          for (const kid of kids) if (kid) node.append(kid);
          return node;
        };
        const svgEl = (tag, attrs = {}) => {
          const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
          for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
          return node;
        };

        async function refresh() {
          const response = await api("/api/state", {cache: "no-store"});
          state = await response.json();
          overrides = Object.assign({}, state.overrides);
          render();
        }

        function connect() {
          const ws = new WebSocket(`ws://${location.host}/events?token=${token}`);
          ws.onopen = () => $("dot").classList.add("on");
          ws.onmessage = event => { if (!state || Number(event.data) !== state.version) refresh(); };
          ws.onclose = () => { $("dot").classList.remove("on"); setTimeout(connect, 1000); };
        }

        function render() {
          document.body.dataset.version = state.version;
          $("file").textContent = state.file;
          const errors = state.problems.filter(p => p.severity === "error").length;
          $("statustext").textContent = `render ${state.version} · ${state.milliseconds.toFixed(0)} ms` +
            (state.previewShrink > 1 ? ` · sources at 1/${state.previewShrink}` : "") +
            (errors ? ` · ${errors} error${errors > 1 ? "s" : ""}` : "");
          const names = state.graphs;
          $("graphs").style.display = names.length > 1 ? "" : "none";
          $("file").style.display = names.length > 1 ? "none" : "";
          $("graphs").replaceChildren(...names.map(n => el("option", {value: n, text: n})));
          $("graphs").value = state.file;
          renderProblems();
          renderGraph();
          renderNodes();
          updateButtons();
        }

        function renderProblems() {
          $("problems").replaceChildren(...state.problems.map(p => el("li", {class: p.severity},
            el("b", {text: p.line > 0 ? `line ${p.line}, column ${p.column}: ` : ""}),
            document.createTextNode(p.message))));
          const byLine = {};
          for (const p of state.problems) if (p.line > 0) (byLine[p.line] = byLine[p.line] || []).push(p);
          const rows = [];
          state.lines.forEach((text, i) => {
            const line = i + 1, here = byLine[line] || [];
            const kind = here.some(p => p.severity === "error") ? "error" : here.length ? "warning" : "";
            rows.push(el("div", {class: `row ${kind}`, "data-line": line}, el("span", {class: "ln", text: line}),
              el("code", {text: text || " "})));
            for (const p of here) {
              rows.push(el("div", {class: `row msg ${p.severity}`}, el("span", {class: "ln", text: ""}),
                el("code", {text: " ".repeat(Math.max(0, p.column - 1)) + "^ " + p.message})));
            }
          });
          $("source").replaceChildren(...rows);
        }

        function renderGraph() {
          if (state.graphSVG) { $("graph").innerHTML = state.graphSVG; return; }
          // No Graphviz: columns by depth, edges as curves.
          const nodes = state.nodes, depth = {};
          const depthOf = n => depth[n.name] ?? (depth[n.name] = Math.max(-1, ...n.inputs
            .map(i => nodes.find(m => m.name === i)).filter(Boolean).map(depthOf)) + 1);
          nodes.forEach(depthOf);
          const columns = {}, pos = {}, W = 130, H = 38, GX = 40, GY = 14;
          for (const n of nodes) (columns[depth[n.name]] = columns[depth[n.name]] || []).push(n);
          let height = 0;
          for (const [c, list] of Object.entries(columns)) list.forEach((n, r) => {
            pos[n.name] = {x: 10 + c * (W + GX), y: 10 + r * (H + GY)};
            height = Math.max(height, pos[n.name].y + H + 10);
          });
          const width = 20 + Object.keys(columns).length * (W + GX) - GX;
          const svg = svgEl("svg", {viewBox: `0 0 ${width} ${height}`});
          for (const n of nodes) for (const i of n.inputs) if (pos[i]) {
            const a = pos[i], b = pos[n.name], y1 = a.y + H / 2, y2 = b.y + H / 2;
            svg.append(svgEl("path", {d: `M${a.x + W},${y1} C${a.x + W + GX / 2},${y1} ${b.x - GX / 2},${y2} ${b.x},${y2}`,
              fill: "none", stroke: "#9aa3b5"}));
          }
          for (const n of nodes) {
            const p = pos[n.name], g = svgEl("g");
            g.append(svgEl("rect", {x: p.x, y: p.y, width: W, height: H, rx: 6, fill: "#fff", stroke: "#7d869a"}));
            const t1 = svgEl("text", {x: p.x + W / 2, y: p.y + 16, "text-anchor": "middle", "font-size": 12,
              "font-weight": 600}); t1.textContent = n.name;
            const t2 = svgEl("text", {x: p.x + W / 2, y: p.y + 30, "text-anchor": "middle", "font-size": 10,
              fill: "#6b7385"}); t2.textContent = n.op;
            g.append(t1, t2); svg.append(g);
          }
          $("graph").replaceChildren(svg);
        }

        function thumbnailOf(key) {
          const [node, port] = [key.slice(0, key.lastIndexOf(".")), key.slice(key.lastIndexOf(".") + 1)];
          const card = state.nodes.find(n => n.name === node);
          return card && card.outputs.find(o => o.port === port && o.thumbnail);
        }

        function outputView(output) {
          if (output.thumbnail) {
            return el("div", {class: "thumb"}, el("img", {src: output.thumbnail, alt: output.port,
              class: Math.max(output.width, output.height) < 128 ? "small" : "",
              title: `${output.width}×${output.height} at preview size`}));
          }
          if (!output.json) return el("div", {class: "note", text: "not rendered"});
          const value = JSON.parse(output.json);
          if (value.kind === "number") return el("div", {class: "number", text: String(value.value)});
          const base = output.overlay && thumbnailOf(output.overlay);
          if (base && (value.boxes || value.faces || value.contours)) {
            const svg = svgEl("svg", {viewBox: `0 0 ${base.width} ${base.height}`, width: base.width,
              height: base.height});
            svg.append(svgEl("image", {href: base.thumbnail, width: base.width, height: base.height}));
            const stroke = Math.max(1.5, base.width / 200);
            for (const box of value.boxes || (value.faces || []).map(f => f.box || f)) {
              svg.append(svgEl("rect", {x: box.x, y: box.y, width: box.width, height: box.height, fill: "none",
                stroke: "#ff3b6b", "stroke-width": stroke}));
            }
            if (value.contours) {
              const sx = base.width / value.tracedWidth, sy = base.height / value.tracedHeight;
              for (const c of value.contours) svg.append(svgEl("polygon", {
                points: c.points.map(([x, y]) => `${x * sx},${y * sy}`).join(" "), fill: "none",
                stroke: c.isHole ? "#2f6fde" : "#ff3b6b", "stroke-width": stroke / 1.5}));
            }
            return el("div", {class: "thumb"}, svg);
          }
          return el("pre", {class: "note", text: output.json.slice(0, 2000)});
        }

        function controlView(card, c) {
          const key = `${card.name}.${c.parameter}`;
          const value = key in overrides ? parseValue(overrides[key]) : c.value;
          const label = el("label", {class: c.isSet || key in overrides ? "set" : "", text: c.parameter,
            title: c.doc + (c.unit ? ` (${c.unit})` : "")});
          if (c.kind === "color") {
            const input = el("input", {type: "color", value: toHex(value), "data-key": key});
            input.oninput = () => change(key, fromHex(input.value, value));
            return el("div", {class: "control"}, label, input, el("span", {class: "unit", text: "colour"}));
          }
          const step = c.kind === "integer" ? 1 : niceStep(c.sliderMax - c.sliderMin);
          const range = el("input", {type: "range", min: c.sliderMin, max: c.sliderMax, step, value: value[0],
            "data-key": key});
          const box = el("input", {type: "number", step: "any", value: value[0], "data-key": key});
          if (c.min != null) box.min = c.min;
          if (c.max != null) box.max = c.max;
          range.oninput = () => { box.value = range.value; change(key, range.value); };
          box.onchange = () => { range.value = box.value; change(key, box.value); };
          return el("div", {class: "control"}, label, range, box);
        }

        const niceStep = span => span <= 2 ? 0.01 : span <= 20 ? 0.1 : span <= 200 ? 1 : 10;
        const parseValue = text => { try { const v = JSON.parse(text); return Array.isArray(v) ? v : [v]; }
          catch { return [Number(text)]; } };
        const toHex = v => "#" + v.slice(0, 3).map(x => Math.round(Math.min(1, Math.max(0, x)) * 255)
          .toString(16).padStart(2, "0")).join("");
        const fromHex = (hex, old) => {
          const rgb = [1, 3, 5].map(i => Math.round(parseInt(hex.slice(i, i + 2), 16) / 255 * 1000) / 1000);
          return "[" + (old.length === 4 ? rgb.concat([old[3]]) : rgb).join(", ") + "]";
        };

        function change(key, text) {
          overrides[key] = String(text);
          updateButtons();
          clearTimeout(timer);
          timer = setTimeout(send, 120);
        }

        async function send() {
          const response = await api("/api/overrides", {method: "POST", body: JSON.stringify(overrides),
            headers: {"Content-Type": "application/json"}});
          if (!response.ok) alert(await response.text());
        }

        function updateButtons() {
          const changed = Object.keys(overrides).length > 0;
          $("save").disabled = !changed;
          $("reset").disabled = !changed;
        }

        function renderNodes() {
          const container = $("nodes");
          container.classList.toggle("stale", state.stale);
          const newShape = JSON.stringify(state.nodes.map(n => [n.name, n.op, n.outputs.map(o => o.kind),
            n.controls.map(c => c.parameter)]));
          if (newShape !== shape || !container.children.length) {
            shape = newShape;
            container.replaceChildren(...state.nodes.map(card => el("div", {class: "card", "data-node": card.name})));
          }
          if (!state.nodes.length) container.replaceChildren(el("div", {id: "empty", text: "No nodes yet."}));
          state.nodes.forEach((card, i) => {
            const box = container.children[i];
            if (!box || box.dataset.node !== card.name) return;
            const time = card.milliseconds != null ? `${card.milliseconds.toFixed(1)} ms` : "";
            const views = card.note ? [el("div", {class: "note", text: card.note})] : card.outputs.map(o =>
              el("div", {}, card.outputs.length > 1 ? el("div", {class: "port", text: o.port}) : null, outputView(o),
                o.json && !(o.overlay && thumbnailOf(o.overlay)) ? null : o.json ? el("details", {},
                  el("summary", {text: "JSON"}), el("pre", {text: o.json.slice(0, 4000)})) : null));
            const head = el("div", {class: "head"}, el("span", {class: "name", text: card.name}),
              el("span", {class: "op", text: card.op}), el("span", {class: "time", text: time}));
            const active = document.activeElement && box.contains(document.activeElement) ?
              document.activeElement.dataset.key : null;
            if (active) {
              // Keep the control in use: replace only the head and the outputs.
              box.replaceChild(head, box.firstChild);
              const body = box.querySelector(".body");
              body.replaceChildren(...views);
              return;
            }
            const controls = card.controls.length ?
              el("div", {class: "controls"}, ...card.controls.map(c => controlView(card, c))) : null;
            box.replaceChildren(...[head, el("div", {class: "body"}, ...views), controls].filter(Boolean));
          });
        }

        $("save").onclick = async () => {
          const response = await api("/api/save", {method: "POST", body: "{}"});
          if (!response.ok) { alert(await response.text()); return; }
          overrides = {}; updateButtons();
        };
        $("reset").onclick = async () => { overrides = {}; await send(); updateButtons(); };
        $("graphs").onchange = async () => {
          const response = await api("/api/open", {method: "POST", body: JSON.stringify({graph: $("graphs").value})});
          if (!response.ok) alert(await response.text());
        };
        refresh().then(connect);
        </script>
        </body>
        </html>
        """#
}
