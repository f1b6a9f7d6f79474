import Testing

@testable import TesseraCatalog
@testable import TesseraGraph
@testable import TesseraPluginHost
@testable import TesseraRunner

/// One mistake per row: the graph text and every diagnostic it must give, exactly.
struct BrokenGraph: CustomTestStringConvertible, Sendable {
    var name: String
    var file = "g.yaml"
    var text: String
    var overrides: [String] = []
    var expected: [String]

    var testDescription: String { name }
}

/// What an unknown op that looks like no built-in is told: how plugins load.
let noPluginHasIt =
    "no built-in node or loaded plugin has it. A plugin's nodes load with --plugin PATH (tessera_load_plugin in the "
    + "C API), from the folders in TESSERA_PLUGIN_PATH, or from the plugins folder beside the tessera executable; "
    + "`tessera nodes` lists the nodes loaded"

let brokenGraphs: [BrokenGraph] = [
    // MARK: Syntax
    BrokenGraph(
        name: "YAML: unclosed flow mapping",
        text: "version: 1\nnodes:\n  a: {op: load, path: x.png\n",
        expected: [
            "g.yaml:4:1: error: invalid YAML: did not find expected ',' or '}' "
                + "(while parsing a flow mapping at line 3, column 6)"
        ]),
    BrokenGraph(
        name: "YAML: bad indentation",
        text: "version: 1\nnodes:\n  a:\n    op: load\n   path: x.png\n",
        expected: [
            "g.yaml:5:4: error: invalid YAML: did not find expected key (while parsing a block mapping at line 3, column 3)"
        ]),
    BrokenGraph(
        name: "JSON: missing comma", file: "g.json",
        text:
            "{\n\t\"version\": 1,\n\t\"nodes\": {\n\t\t\"a\": {\"op\": \"load\", \"path\": \"x.png\"}\n\t\t\"b\": 1\n\t}\n}\n",
        expected: ["g.json:5:3: error: invalid JSON: expected ',' or '}' after a value in an object, found '\"'"]),
    BrokenGraph(
        name: "JSON: trailing garbage", file: "g.json",
        text: "{\"version\": 1, \"nodes\": {}} }",
        expected: ["g.json:1:29: error: invalid JSON: more text after the end of the document: '}'"]),
    BrokenGraph(
        name: "empty file", text: "",
        expected: ["g.yaml:1:1: error: the file is empty"]),
    BrokenGraph(
        name: "YAML: duplicate keys, all reported",
        text: """
            version: 1
            nodes:
              a: { op: load, path: x.png, path: y.png }
              b: { op: save, input: a, path: o.png }
              b: { op: save, input: a, path: p.png }
            """,
        expected: [
            "g.yaml:3:31: error: duplicate key 'path' (first at line 3, column 18)",
            "g.yaml:5:3: error: duplicate key 'b' (first at line 4, column 3)",
        ]),
    BrokenGraph(
        name: "JSON: duplicate key", file: "g.json",
        text: """
            {"version": 1, "version": 1,
             "nodes": {"a": {"op": "load", "path": "x.png"}, "b": {"op": "save", "input": "a", "path": "o.png"}}}
            """,
        expected: ["g.json:1:16: error: duplicate key 'version' (first at line 1, column 2)"]),

    // MARK: The document
    BrokenGraph(
        name: "not a mapping", text: "- version: 1\n",
        expected: ["g.yaml:1:1: error: a graph is a mapping with 'version' and 'nodes', not a list"]),
    BrokenGraph(
        name: "missing version",
        text: "nodes:\n  a: { op: load, path: x.png }\n  b: { op: save, input: a, path: o.png }\n",
        expected: ["g.yaml:1:1: error: missing 'version: 1' (the version of the graph format)"]),
    BrokenGraph(
        name: "unsupported version",
        text: "version: 2\nnodes:\n  a: { op: load, path: x.png }\n  b: { op: save, input: a, path: o.png }\n",
        expected: ["g.yaml:1:10: error: unsupported version 2; this Tessera reads version 1"]),
    BrokenGraph(
        name: "version not a number", file: "g.json",
        text:
            #"{"version": "one", "nodes": {"a": {"op": "load", "path": "x.png"}, "b": {"op": "save", "input": "a", "path": "o.png"}}}"#,
        expected: ["g.json:1:13: error: 'version' must be the number 1, not a string"]),
    BrokenGraph(
        name: "unknown top-level key",
        text: "version: 1\nnode:\n  a: { op: load, path: x.png }\n",
        expected: [
            "g.yaml:1:1: error: missing 'nodes' (a mapping from node names to nodes)",
            "g.yaml:2:1: error: unknown key 'node' (a graph has 'version' and 'nodes'); did you mean 'nodes'?",
        ]),
    BrokenGraph(
        name: "nodes is a list",
        text: "version: 1\nnodes:\n  - a\n",
        expected: ["g.yaml:3:3: error: 'nodes' must map node names to nodes, not be a list"]),
    BrokenGraph(
        name: "no nodes", text: "version: 1\nnodes: {}\n",
        expected: ["g.yaml:2:8: error: the graph has no nodes"]),

    // MARK: Nodes
    BrokenGraph(
        name: "node is not a mapping",
        text: "version: 1\nnodes:\n  photo: load\n",
        expected: [
            "g.yaml:3:10: error: node 'photo' must be a mapping with 'op', inputs and parameters "
                + "(as {op: load, path: a.png}), not a string"
        ]),
    BrokenGraph(
        name: "invalid node name",
        text:
            "version: 1\nnodes:\n  my.photo: { op: load, path: x.png }\n  out: { op: save, input: my, path: o.png }\n",
        expected: [
            "g.yaml:3:3: error: 'my.photo' is not a valid node name: use letters, digits, '_' and '-', "
                + "starting with a letter",
            "g.yaml:4:27: error: no node 'my'",
        ]),
    BrokenGraph(
        name: "missing op",
        text: "version: 1\nnodes:\n  photo: { path: x.png }\n",
        expected: ["g.yaml:3:3: error: node 'photo' has no 'op' (the kind of node, as op: load)"]),
    BrokenGraph(
        name: "unknown op, with a suggestion",
        text:
            "version: 1\nnodes:\n  photo: { op: laod, path: x.png }\n  out: { op: save, input: photo, path: o.png }\n",
        expected: ["g.yaml:3:16: error: unknown op 'laod'; did you mean 'load'?"]),
    BrokenGraph(
        name: "unknown op, nothing close", file: "g.json",
        text: #"{"version": 1, "nodes": {"a": {"op": "sharpenEverything"}}}"#,
        expected: ["g.json:1:38: error: unknown op 'sharpenEverything'; " + noPluginHasIt]),
    BrokenGraph(
        name: "unknown parameter, with a suggestion and the valid names",
        text: """
            version: 1
            nodes:
              photo: { op: load, path: x.png }
              out: { op: save, input: photo, path: o.jpg, qualty: 80 }
            """,
        expected: [
            "g.yaml:4:47: error: save node 'out' has no input or parameter 'qualty' (it takes input, path, depth, "
                + "quality, compression, tile, progressive, lossless, background, profile, metadata, dpi, stroke, strokeWidth, "
                + "colorByDepth); did you mean 'quality'?"
        ]),
    BrokenGraph(
        name: "JSON: unknown parameter", file: "g.json",
        text: """
            {"version": 1, "nodes": {
              "photo": {"op": "load", "path": "x.png", "orientation": false},
              "out": {"op": "save", "input": "photo", "path": "o.png"}}}
            """,
        expected: [
            "g.json:2:44: error: load node 'photo' has no input or parameter 'orientation' "
                + "(it takes path, maxPixels, maxMemory, keepOrientation, failOn, frame, shrink); did you mean 'keepOrientation'?"
        ]),

    // MARK: Values
    BrokenGraph(
        name: "wrong type: string for an integer",
        text: """
            version: 1
            nodes:
              photo: { op: load, path: x.png }
              out: { op: save, input: photo, path: o.jpg, quality: high }
            """,
        expected: ["g.yaml:4:56: error: out.quality: expected an integer, found a string 'high'"]),
    BrokenGraph(
        name: "JSON: wrong type: quoted number", file: "g.json",
        text: """
            {"version": 1, "nodes": {
              "photo": {"op": "load", "path": "x.png"},
              "out": {"op": "save", "input": "photo", "path": "o.jpg", "quality": "90"}}}
            """,
        expected: ["g.json:3:71: error: out.quality: expected an integer, found a string '90'"]),
    BrokenGraph(
        name: "wrong type: fraction for an integer",
        text:
            "version: 1\nnodes:\n  a: { op: testConstant, size: 2.5 }\n  b: { op: testCrop, input: a, rect: [0, 0, 1, 1] }\n",
        expected: ["g.yaml:3:32: error: a.size: expected an integer, found a number (2.5)"]),
    BrokenGraph(
        name: "wrong type: boolean",
        text:
            "version: 1\nnodes:\n  a: { op: testConstant, flipped: 1 }\n  b: { op: testCrop, input: a, rect: [0, 0, 1, 1] }\n",
        expected: ["g.yaml:3:35: error: a.flipped: expected true or false, found a number (1)"]),
    BrokenGraph(
        name: "out of range",
        text: """
            version: 1
            nodes:
              photo: { op: load, path: x.png }
              out: { op: save, input: photo, path: o.jpg, quality: 150 }
            """,
        expected: ["g.yaml:4:56: error: out.quality: 150 is out of range: 1...100"]),
    BrokenGraph(
        name: "out of range: open range",
        text:
            "version: 1\nnodes:\n  photo: { op: load, path: x.png, maxPixels: -5 }\n  out: { op: save, input: photo, path: o.png }\n",
        expected: ["g.yaml:3:46: error: photo.maxPixels: -5 is out of range: at least 1"]),
    BrokenGraph(
        name: "a number a choice does not list: load's shrink",
        text:
            "version: 1\nnodes:\n  photo: { op: load, path: x.jpg, shrink: 3 }\n  out: { op: save, input: photo, path: o.png }\n",
        expected: ["g.yaml:3:43: error: photo.shrink: '3' is not one of 1, 2, 4, 8"]),
    BrokenGraph(
        name: "thumbnail: no box, and two boxes",
        text: """
            version: 1
            nodes:
              a: { op: thumbnail, path: x.jpg }
              b: { op: thumbnail, path: x.jpg, width: 100, size: 320 }
              oa: { op: save, input: a, path: a.png }
              ob: { op: save, input: b, path: b.png }
            """,
        expected: [
            "g.yaml:3:3: error: a.size: the box is missing: give size, or width and/or height",
            "g.yaml:4:54: error: b.size: give either size or width/height, not both: they set the box two ways",
        ]),
    BrokenGraph(
        name: "out of range: an element of a list",
        text: """
            version: 1
            nodes:
              a: { op: testConstant, weights: [0.5, 0.5, 1.5, 0] }
              b: { op: testCrop, input: a, rect: [0, 0, 1, 1] }
            """,
        expected: ["g.yaml:3:35: error: a.weights: 1.5 is out of range: 0...1"]),
    BrokenGraph(
        name: "list of the wrong length",
        text:
            "version: 1\nnodes:\n  a: { op: testConstant, weights: [1, 0, 0] }\n  b: { op: testCrop, input: a, rect: [0, 0, 1, 1] }\n",
        expected: ["g.yaml:3:35: error: a.weights: expected a list of 4 numbers, found 3"]),
    BrokenGraph(
        name: "not one of the choices",
        text: """
            version: 1
            nodes:
              photo: { op: load, path: x.png }
              out: { op: save, input: photo, path: o.tif, compression: zip }
            """,
        expected: [
            "g.yaml:4:60: error: out.compression: 'zip' is not one of auto, none, lzw, deflate, packbits, jpeg, "
                + "0, 1, 2, 3, 4, 5, 6, 7, 8, 9"
        ]),
    BrokenGraph(
        name: "a node's own check: format from the extension",
        text:
            "version: 1\nnodes:\n  photo: { op: load, path: x.png }\n  out: { op: save, input: photo, path: o.bmp }\n",
        expected: [
            "g.yaml:4:40: error: out.path: cannot tell the output format from the name: "
                + "use .png, .tif, .tiff, .jpg, .jpeg, .jpe, .webp, .heic, .heif, .avif"
        ]),
    BrokenGraph(
        name: "a node's own check: options that do not fit the format",
        text: """
            version: 1
            nodes:
              photo: { op: load, path: x.png }
              out: { op: save, input: photo, path: o.png, compression: lzw }
            """,
        expected: ["g.yaml:4:60: error: out.compression: PNG compression is a zlib level from 0 to 9, not 'lzw'"]),

    // MARK: Connections
    BrokenGraph(
        name: "required input missing",
        text: "version: 1\nnodes:\n  out: { op: save, path: o.png }\n",
        expected: ["g.yaml:3:3: error: save node 'out' needs input 'input' (any value)"]),
    BrokenGraph(
        name: "required parameter missing",
        text: "version: 1\nnodes:\n  photo: { op: load }\n  out: { op: save, input: photo, path: o.png }\n",
        expected: ["g.yaml:3:3: error: load node 'photo' needs parameter 'path' (path)"]),
    BrokenGraph(
        name: "reference to a missing node, with a suggestion",
        text: "version: 1\nnodes:\n  photo: { op: load, path: x.png }\n  out: { op: save, input: foto, path: o.png }\n",
        expected: ["g.yaml:4:27: error: no node 'foto'; did you mean 'photo'?"]),
    BrokenGraph(
        name: "reference to a missing port",
        text: """
            version: 1
            nodes:
              b: { op: testBoxes }
              c: { op: testConstant }
              d: { op: testCrop, input: c, rect: { from: b.box } }
            """,
        expected: [
            "g.yaml:5:46: error: testBoxes node 'b' has no output 'box' (its outputs: boxes, count); "
                + "did you mean 'boxes'?"
        ]),
    BrokenGraph(
        name: "reading a sink",
        text: """
            version: 1
            nodes:
              photo: { op: load, path: x.png }
              out: { op: save, input: photo, path: o.png }
              again: { op: save, input: out, path: p.png }
            """,
        expected: ["g.yaml:5:29: error: save node 'out' has no outputs to read"]),
    BrokenGraph(
        name: "port type mismatch: contours into an image input",
        text: "version: 1\nnodes:\n  c: { op: testContours }\n  out: { op: testCrop, input: c, rect: [0, 0, 1, 1] }\n",
        expected: [
            "g.yaml:4:31: error: input 'input' of 'out' (testCrop) takes an image, but 'c' (testContours) gives contours"
        ]),
    // MARK: What save writes, known without pixels
    BrokenGraph(
        name: "save: an image to .json, with an option; the format is the problem",
        text: """
            version: 1
            nodes:
              a: { op: testConstant }
              out: { op: save, input: a, path: o.json, quality: 80 }
            """,
        expected: [
            "g.yaml:4:36: error: out.path: an image cannot be written as .json; "
                + "use .png, .tif, .jpg, .webp, .heic or .avif"
        ]),
    BrokenGraph(
        name: "save: an image to .svg",
        text: "version: 1\nnodes:\n  a: { op: testConstant }\n  out: { op: save, input: a, path: o.svg }\n",
        expected: [
            "g.yaml:4:36: error: out.path: an image cannot be written as .svg; "
                + "use .png, .tif, .jpg, .webp, .heic or .avif"
        ]),
    BrokenGraph(
        name: "save: contours to .png",
        text: "version: 1\nnodes:\n  c: { op: testContours }\n  out: { op: save, input: c, path: c.png }\n",
        expected: ["g.yaml:4:36: error: out.path: contours are written as .json or .svg, not 'c.png'"]),
    BrokenGraph(
        name: "save: a number to .png", file: "g.json",
        text: """
            {"version": 1, "nodes": {
              "b": {"op": "testBoxes"},
              "out": {"op": "save", "input": "b.count", "path": "o.png"}}}
            """,
        expected: ["g.json:3:53: error: out.path: a number is written as .json, not 'o.png'"]),
    BrokenGraph(
        name: "save: boxes to .json take no image or SVG options, each reported",
        text: """
            version: 1
            nodes:
              b: { op: testBoxes }
              out: { op: save, input: b.boxes, path: b.json, quality: 80, stroke: [1, 0, 0, 1], background: [0, 0, 0] }
            """,
        expected: [
            "g.yaml:4:59: error: out.quality: for JPEG, TIFF, WebP, HEIC and AVIF files only; .json files do not take it",
            "g.yaml:4:71: error: out.stroke: for SVG files only; .json files do not take it",
            "g.yaml:4:97: error: out.background: for JPEG files only; .json files do not take it",
        ]),
    BrokenGraph(
        name: "save: every problem of an image option set for PNG",
        text: """
            version: 1
            nodes:
              a: { op: testConstant }
              out: { op: save, input: a, path: o.png, depth: float, tile: 256, progressive: true, strokeWidth: 2 }
            """,
        expected: [
            "g.yaml:4:50: error: out.depth: PNG holds 8- or 16-bit samples, not float",
            "g.yaml:4:63: error: out.tile: for TIFF files only; .png files do not take it",
            "g.yaml:4:81: error: out.progressive: for JPEG files only; .png files do not take it",
            "g.yaml:4:100: error: out.strokeWidth: for SVG files only; .png files do not take it",
        ]),
    BrokenGraph(
        name: "save: a format option from --set on a format without it",
        text: "version: 1\nnodes:\n  a: { op: testConstant }\n  out: { op: save, input: a, path: o.png }\n",
        overrides: ["out.quality=70"],
        expected: [
            "--set out.quality=70: error: out.quality: for JPEG, TIFF, WebP, HEIC and AVIF files only; .png files do not take it"
        ]),
    BrokenGraph(
        name: "drawBoxes: an image to draw on or one to take the size of, not both",
        text: """
            version: 1
            nodes:
              a: { op: testConstant }
              b: { op: testBoxes }
              both: { op: drawBoxes, boxes: b.boxes, input: a, like: a }
              none: { op: drawBoxes, boxes: b.boxes }
              o1: { op: save, input: both, path: o1.png }
              o2: { op: save, input: none, path: o2.png }
            """,
        expected: [
            "g.yaml:5:58: error: both.like: connect `input` (to draw on) or `like`, not both",
            "g.yaml:6:3: error: none.like: connect `input` (the image to draw on) or `like` (an image whose size to take)",
        ]),
    BrokenGraph(
        name: "unknown op, perhaps a plugin's",
        text: "version: 1\nnodes:\n  a: { op: testConstant }\n  e: { op: sobel, input: a }\n",
        expected: ["g.yaml:4:12: error: unknown op 'sobel'; " + noPluginHasIt]),
    BrokenGraph(
        name: "port type mismatch: a named port", file: "g.json",
        text: """
            {"version": 1, "nodes": {
              "b": {"op": "testBoxes"},
              "out": {"op": "testCrop", "input": "b.count", "rect": [0, 0, 1, 1]}}}
            """,
        expected: [
            "g.json:3:38: error: input 'input' of 'out' (testCrop) takes an image, but 'b.count' (testBoxes) "
                + "gives a number"
        ]),
    BrokenGraph(
        name: "upstream parameter of the wrong type",
        text: """
            version: 1
            nodes:
              c: { op: testConstant }
              d: { op: testCrop, input: c, rect: { from: c } }
            """,
        expected: [
            "g.yaml:4:46: error: parameter 'rect' of 'd' (testCrop) takes boxes, faces, text, hands, barcodes, bodies or rectangles, but 'c' (testConstant) gives an image"
        ]),
    BrokenGraph(
        name: "upstream value for a parameter that takes none",
        text: """
            version: 1
            nodes:
              b: { op: testBoxes }
              c: { op: testConstant, caption: { from: b.count } }
              d: { op: testCrop, input: c, rect: [0, 0, 1, 1] }
            """,
        expected: ["g.yaml:4:35: error: c.caption: a string parameter cannot take its value from another node"]),
    BrokenGraph(
        name: "an input that is not a name",
        text: "version: 1\nnodes:\n  photo: { op: load, path: x.png }\n  out: { op: save, input: 3, path: o.png }\n",
        expected: ["g.yaml:4:27: error: input 'input' of 'out' must name a node (as photo or heat.boxes), not a number"]
    ),
    BrokenGraph(
        name: "a cycle, naming every node on it",
        text: """
            version: 1
            nodes:
              a: { op: testCrop, input: c, rect: [0, 0, 1, 1] }
              b: { op: testCrop, input: a, rect: [0, 0, 1, 1] }
              c: { op: testCrop, input: b, rect: [0, 0, 1, 1] }
              out: { op: save, input: c, path: o.png }
            """,
        expected: ["g.yaml:3:3: error: these nodes read each other in a cycle: 'a' -> 'b' -> 'c' -> 'a'"]),
    BrokenGraph(
        name: "a cycle through a parameter",
        text: """
            version: 1
            nodes:
              a: { op: testCrop, input: a, rect: [0, 0, 1, 1] }
              out: { op: save, input: a, path: o.png }
            """,
        expected: ["g.yaml:3:3: error: these nodes read each other in a cycle: 'a' -> 'a'"]),

    BrokenGraph(
        name: "cycles: the shortest through the first node, and who else is caught",
        text: """
            version: 1
            nodes:
              a: { op: testCrop, input: b, background: c, rect: [0, 0, 1, 1] }
              b: { op: testCrop, input: a, rect: [0, 0, 1, 1] }
              c: { op: testCrop, input: a, rect: [0, 0, 1, 1] }
              end: { op: testSink, input: b }
            """,
        expected: [
            "g.yaml:3:3: error: these nodes read each other in a cycle: 'a' -> 'b' -> 'a' "
                + "(and through other cycles: 'c')"
        ]),
    BrokenGraph(
        name: "a cycle does not hide other errors",
        text: """
            version: 1
            nodes:
              a: { op: testCrop, input: b, rect: [0, 0, 1, 1] }
              b: { op: testCrop, input: a, rect: [0, 0, 1, 1] }
              out: { op: save, input: b, path: o.bmp }
            """,
        expected: [
            "g.yaml:3:3: error: these nodes read each other in a cycle: 'a' -> 'b' -> 'a'",
            "g.yaml:5:36: error: out.path: cannot tell the output format from the name: "
                + "use .png, .tif, .tiff, .jpg, .jpeg, .jpe, .webp, .heic, .heif, .avif",
        ]),
    BrokenGraph(
        name: "a broken connection makes no cycle",
        text: """
            version: 1
            nodes:
              photo: { op: load, path: x.png }
              s: { op: save, input: photo, path: o.png, quality: { from: s } }
            """,
        expected: ["g.yaml:4:62: error: save node 's' has no outputs to read"]),
    BrokenGraph(
        name: "nesting too deep",
        text: "version: 1\nnodes: " + String(repeating: "[", count: 300) + String(repeating: "]", count: 300) + "\n",
        expected: ["g.yaml:2:207: error: the file nests values more than 200 levels deep"]),

    // MARK: --set
    BrokenGraph(
        name: "--set: unknown node and parameter, bad value, input port",
        text:
            "version: 1\nnodes:\n  photo: { op: load, path: x.png }\n  out: { op: save, input: photo, path: o.png }\n",
        overrides: ["phot.path=y.png", "out.qualty=3", "out.quality=0", "out.input=photo", "out.tile=[1,"],
        expected: [
            "--set out.input=photo: error: 'input' is an input of save node 'out'; --set sets parameters",
            "--set out.quality=0: error: out.quality: 0 is out of range: 1...100",
            "--set out.qualty=3: error: save node 'out' has no parameter 'qualty' (it takes path, depth, quality, "
                + "compression, tile, progressive, lossless, background, profile, metadata, dpi, stroke, strokeWidth, "
                + "colorByDepth); did you mean 'quality'?",
            "--set out.tile=[1,: error: cannot read the value '[1,'",
            "--set phot.path=y.png: error: no node 'phot'; did you mean 'photo'?",
        ]),

    // MARK: Hostile values: sizes that would overflow or allocate wildly, paths the file system cannot take
    BrokenGraph(
        name: "a margin or rectangle beyond 2^30 is refused, never an overflow",
        text: """
            version: 1
            nodes:
              c: { op: constant, width: 67, height: 45 }
              b: { op: crop, input: c, margin: 9223372036854775807 }
              r: { op: crop, input: c, rect: [9223372036854775807, 0, 5, 5] }
              o: { op: save, input: b, path: o.png }
              p: { op: save, input: r, path: p.png }
            """,
        overrides: ["b.margin=-9223372036854775808"],
        expected: [
            "--set b.margin=-9223372036854775808: error: b.margin: -9223372036854775808 is out of range: "
                + "-1073741824...1073741824",
            "g.yaml:4:36: error: b.margin: 9223372036854775807 is out of range: -1073741824...1073741824",
            "g.yaml:5:34: error: r.rect: a rectangle's x, y, width and height must lie within ±1073741824 (2^30), "
                + "got [9223372036854775807, 0, 5, 5]",
        ]),
    BrokenGraph(
        name: "composite offsets beyond 2^30",
        text: """
            version: 1
            nodes:
              c: { op: constant, width: 67, height: 45 }
              m: { op: composite, input: c, background: c, x: 9223372036854775807, y: -9223372036854775808 }
              o: { op: save, input: m, path: o.png }
            """,
        expected: [
            "g.yaml:4:51: error: m.x: 9223372036854775807 is out of range: -1073741824...1073741824",
            "g.yaml:4:75: error: m.y: -9223372036854775808 is out of range: -1073741824...1073741824",
        ]),
    BrokenGraph(
        name: "a tile or traced grid too large to allocate",
        text: """
            version: 1
            nodes:
              c: { op: constant, width: 67, height: 45 }
              d: { op: detectContours, input: c, maximumImageDimension: 100000 }
              o: { op: save, input: c, path: o.tif, tile: 65536 }
              j: { op: save, input: d, path: d.json }
            """,
        expected: [
            "g.yaml:4:61: error: d.maximumImageDimension: 100000 is out of range: 64...8192",
            "g.yaml:5:47: error: o.tile: 65536 is out of range: 0...4096",
        ]),
    BrokenGraph(
        name: "JSON: a NUL in a path", file: "g.json",
        text: """
            {"version": 1, "nodes": {"a": {"op": "constant", "width": 2, "height": 2},
             "o": {"op": "save", "input": "a", "path": "o/c\\u0000.png"}}}
            """,
        expected: ["g.json:2:44: error: o.path: a file path cannot contain a NUL character (\\0 or \\u0000)"]),
    BrokenGraph(
        name: "two saves to one file, naming both",
        text: """
            version: 1
            nodes:
              a: { op: constant, width: 2, height: 2 }
              o: { op: save, input: a, path: out/o.png }
              p: { op: save, input: a, path: out/../out/o.png }
            """,
        expected: [
            "g.yaml:5:34: error: p.path: out/../out/o.png is also written by o.path (line 4, column 34); "
                + "each file can be written by one node"
        ]),
    BrokenGraph(
        name: "-0 is the number 0, in YAML and --set",
        text: """
            version: 1
            nodes:
              a: { op: constant, width: 2, height: 2, color: [-0, 0, 0, 1] }
              o: { op: save, input: a, path: o.jpg, quality: -0 }
            """,
        overrides: ["o.quality=-0"],
        expected: [
            "--set o.quality=-0: error: o.quality: 0 is out of range: 1...100",
            "g.yaml:4:50: error: o.quality: 0 is out of range: 1...100",
        ]),

    // MARK: Everything at once
    BrokenGraph(
        name: "every error is reported, in file order",
        text: """
            version: 1
            nodes:
              photo: { op: load, path: x.png, maxPixels: 0 }
              blur: { op: noSuchOp, input: photo }
              out: { op: save, input: photo, path: o.jpg, quality: 0, depth: 16 }
            """,
        expected: [
            "g.yaml:3:46: error: photo.maxPixels: 0 is out of range: at least 1",
            "g.yaml:4:15: error: unknown op 'noSuchOp'; " + noPluginHasIt,
            "g.yaml:5:56: error: out.quality: 0 is out of range: 1...100",
        ]),
]

@Suite struct BrokenGraphTests {
    @Test(arguments: brokenGraphs)
    func reportsExactly(_ graph: BrokenGraph) throws {
        let overrides = try graph.overrides.map { text throws(GraphErrors) in try ParameterOverride(parsing: text) }
        let diagnostics: [String]
        do {
            _ = try Graph.parse(
                graph.text, file: graph.file, baseFolder: "", catalog: testCatalog, overrides: overrides)
            diagnostics = []
        } catch {
            diagnostics = error.diagnostics.map(\.description)
        }
        #expect(diagnostics == graph.expected)
    }

    @Test func tableCoversYAMLAndJSON() {
        #expect(brokenGraphs.count >= 25)
        #expect(brokenGraphs.filter { $0.file.hasSuffix(".json") }.count >= 5)
    }

    @Test func malformedOverride() {
        #expect(throws: GraphErrors.self) { try ParameterOverride(parsing: "sigma=3") }
        #expect(throws: GraphErrors.self) { try ParameterOverride(parsing: "soft.sigma") }
    }
}
