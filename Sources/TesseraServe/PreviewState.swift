/// What the page shows, sent as JSON (`GET /api/state`): the graph file's lines and problems, and for
/// each node its outputs (a thumbnail's address, or a value as JSON), its time and its controls.
struct PreviewState: Codable, Sendable {
    /// Counts renders; the page asks for the state again when the server announces a new one.
    var version = 0
    /// The graph file as the command named it.
    var file = ""
    var lines: [String] = []
    var problems: [Problem] = []
    /// True when the file has errors and the nodes shown are those of the last graph that ran.
    var stale = false
    var nodes: [NodeCard] = []
    /// The graph drawn by Graphviz (`dot -Tsvg`), when it is installed; the page lays it out otherwise.
    var graphSVG: String?
    /// The last render: parse, plan and run of the preview, and encoding the thumbnails.
    var milliseconds = 0.0
    /// Sources decoded this many times smaller on each side for the preview (`load`'s `shrink`).
    var previewShrink = 1
    /// The `--set` overrides the page's controls apply now, by `node.parameter`.
    var overrides: [String: String] = [:]
    /// The other graph files in the served folder, which the page can switch to.
    var graphs: [String] = []

    struct Problem: Codable, Sendable {
        var severity: String
        /// 0 when the problem has no line (a `--set` value).
        var line: Int
        var column: Int
        var message: String
        /// `FILE:LINE:COLUMN: error: MESSAGE`, as `tessera validate` prints it.
        var text: String
    }

    struct NodeCard: Codable, Sendable {
        var name: String
        var op: String
        var line: Int
        /// The nodes this one reads.
        var inputs: [String]
        var outputs: [Output]
        /// Time spent on this node's pixels in the preview render; nil when it rendered none.
        var milliseconds: Double?
        var controls: [Control]
        /// What a node without outputs (a `save`) would do: not done by the preview.
        var note: String?
    }

    struct Output: Codable, Sendable {
        var port: String
        /// `image`, `boxes`, `contours`, `number`, ...
        var kind: String
        var width: Int?
        var height: Int?
        /// The thumbnail's address, for an image.
        var thumbnail: String?
        /// A value's JSON (as `tessera run --json` writes it).
        var json: String?
        /// The thumbnail (`node.port`) of the image the value was found in, to draw it over.
        var overlay: String?
    }

    /// A control for a number or colour parameter, from its declaration.
    struct Control: Codable, Sendable {
        var parameter: String
        /// `number`, `integer` or `color`.
        var kind: String
        /// One number, or a colour's 3 or 4 in 0...1.
        var value: [Double]
        var min: Double?
        var max: Double?
        /// The slider's range: the declared suggested range when there is one.
        var sliderMin: Double?
        var sliderMax: Double?
        var unit: String?
        var doc: String
        /// True when the graph file (or `--set`) sets it; false for a default.
        var isSet: Bool
    }
}
