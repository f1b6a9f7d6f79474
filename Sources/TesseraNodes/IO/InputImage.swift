import TesseraCore

/// `input`: an image the program running the graph supplies from memory (a NumPy array from Python, a
/// buffer through the C API, an ``Image`` from Swift), declared with its size and channels so that the
/// graph validates before any pixels exist.
///
///     photo: { op: input, width: 1920, height: 1080, channels: 3 }
///
/// The image is given by node name: `Graph.run(supplying: ["photo": .image(image)])` in Swift,
/// `tessera_graph_set_input` in C, `graph.run(inputs={"photo": array})` in Python. One of another size
/// or channel count is refused before anything runs, naming the node. Run with nothing supplied, the
/// node fails, saying how to supply it.
struct InputImage: Node {
    static let info = NodeInfo(
        op: "input",
        summary:
            "An image supplied from memory by the program running the graph (Swift, C or Python), declared with its size and channels.",
        access: .source,
        outputs: [.init("output", .image, doc: "The image supplied, with samples scaled to 0...1.")],
        example: """
            photo: { op: input, width: 640, height: 480, channels: 3 }
            soft: { op: gaussianBlur, input: photo, sigma: 2 }
            """)

    @Parameter(doc: "The width of the image the program supplies.", range: 1...1_000_000, unit: "px")
    var width: Int

    @Parameter(doc: "The height of the image the program supplies.", range: 1...1_000_000, unit: "px")
    var height: Int

    @Parameter(doc: "Its channels: 1 gray, 2 gray and alpha, 3 RGB, 4 RGBA.", range: 1...4)
    var channels = 3

    @Parameter(
        doc: "Its sample type, which `save` keeps unless told otherwise: 8, 16 or float bits; `any` takes what is "
            + "supplied.")
    var depth = Depth.any

    enum Depth: String, ParameterChoice {
        case any
        case eight = "8"
        case sixteen = "16"
        case float

        var sampleDepth: SampleDepth? {
            switch self {
            case .any: nil
            case .eight: .uint8
            case .sixteen: .uint16
            case .float: .float32
            }
        }
    }

    func prepare(_ inputs: [String: ImageShape]) -> Preparation {
        Preparation(outputSizes: ["output": .init(width: width, height: height)])
    }

    var layout: PixelLayout {
        [PixelLayout.gray, .grayAlpha, .rgb, .rgba][min(max(channels, 1), 4) - 1]
    }

    func check(supplied value: NodeValue) throws(NodeProblem) {
        guard case .image(let image) = value else {
            throw NodeProblem(parameter: "width", "an input takes an image, and \(value.type.phrase) was supplied")
        }
        guard image.width == width, image.height == height else {
            throw NodeProblem(
                parameter: "width",
                "the image supplied is \(image.width)x\(image.height), and the graph declares \(width)x\(height)")
        }
        guard image.layout.fileChannels == channels else {
            throw NodeProblem(
                parameter: "channels",
                "the image supplied has \(image.layout.fileChannels) channels, and the graph declares \(channels)")
        }
        if let expected = depth.sampleDepth, image.depth != expected {
            throw NodeProblem(
                parameter: "depth",
                "the image supplied has \(image.depth.bits)-bit samples, and the graph declares \(expected.bits)")
        }
    }

    func run() throws -> NodeOutputs {
        throw NodeConfigurationError(
            "no image was supplied for this input (supply it by node name: Graph.run(supplying:) in Swift, "
                + "tessera_graph_set_input in C, run(inputs=...) in Python, --input NODE=FILE on the command line)")
    }
}
