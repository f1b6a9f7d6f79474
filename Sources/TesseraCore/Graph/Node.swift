/// How a node reads its inputs: all the scheduler needs to know to feed it.
public enum AccessPattern: String, Sendable, CaseIterable {
    /// Makes pixels from nothing upstream (load, constant): knows its extent, fills any region.
    case source
    /// Each output pixel from the same input pixel (contrast, colorMatrix).
    case point
    /// Each output pixel from a neighbourhood of input pixels (gaussianBlur).
    case area
    /// Moves pixels (crop, resize): maps output regions to input regions.
    case geometry
    /// Reads the whole input once, then serves results (saliency, normalize).
    case global
    /// Consumes its input (save).
    case sink

    /// One line for docs and `tessera nodes`.
    public var summary: String {
        switch self {
        case .source: "makes pixels for any region"
        case .point: "each output pixel from the same input pixel"
        case .area: "each output pixel from a neighbourhood of input pixels"
        case .geometry: "maps output regions to input regions"
        case .global: "reads the whole input once, then serves its results"
        case .sink: "consumes its input"
        }
    }
}

/// What a node type says about itself besides its parameters and inputs (which its properties declare).
public struct NodeInfo: Sendable {
    /// The node's name in graph files: lowerCamelCase, as `gaussianBlur`.
    public var op: String
    /// One sentence.
    public var summary: String
    public var access: AccessPattern
    /// Output ports; the first is the one a bare reference (`input: photo`) means.
    public var outputs: [OutputDeclaration]
    /// The `nodes:` entries of a small graph that uses the node, in YAML. Tests check that it validates.
    public var example: String
    /// For a ``AccessPattern/global`` node: whether the image it returns reads its input again, tile by
    /// tile, after the node ran (normalize's stretch), rather than holding its own results. The render
    /// plan then counts the later readers of that image as readers of the input too.
    public var outputReadsInput: Bool
    /// For a ``AccessPattern/global`` node: whether it reads regions of its inputs as it needs them, in any
    /// order (a plugin's `run_v3`: a face detector's strips, then the face's crop), rather than each whole,
    /// once, top to bottom. The render plan then keeps a source that decodes front to back whole, so that
    /// no read starts its decoding over.
    public var readsRegions: Bool

    public init(
        op: String, summary: String, access: AccessPattern, outputs: [OutputDeclaration], example: String,
        outputReadsInput: Bool = false, readsRegions: Bool = false
    ) {
        self.op = op
        self.summary = summary
        self.access = access
        self.outputs = outputs
        self.example = example
        self.outputReadsInput = outputReadsInput
        self.readsRegions = readsRegions
    }
}

/// A node type. Its stored properties are its interface: each ``Parameter`` and ``Input`` property
/// declares one parameter or input port, under the property's name. The engine creates a node with
/// its parameters and inputs set, then calls ``ConfiguredNode/run()``.
///
///     struct Invert: Node {
///         static let info = NodeInfo(op: "invert", summary: "...", access: .point, outputs: [...], example: "...")
///         @Input(doc: "The image to invert.") var input: Image
///         @Parameter(doc: "How much to invert.", range: 0...1) var amount = 1.0
///         func run() throws -> NodeOutputs { ... }
///     }
///
/// Declare nothing else as stored properties: the engine sets them by reflection (as swift-argument-
/// parser does), through the `Decodable` conformance Swift writes for the type.
public protocol Node: ConfiguredNode, Decodable {
    static var info: NodeInfo { get }
    init()
}

/// A node with its parameters set and inputs connected: what the engine validates and runs. Every
/// ``Node`` is one; so is a node from a plugin, which the engine configures without a Swift type.
public protocol ConfiguredNode: Sendable {
    /// Checks parameters against each other (a resize's width and factor). Inputs are not connected
    /// yet. Throw ``NodeProblem`` naming the parameter at fault. A node with one such check writes this.
    func validate() throws(NodeProblem)
    /// Every problem found without pixels, from the parameters and what ``ValidationContext`` knows of
    /// the inputs (their types) and of the graph (which parameters it sets): `save` of an image to
    /// `.json`, or `quality` given for a format that takes none. By default, the problem `validate()` throws.
    func validate(in context: ValidationContext) -> [NodeProblem]
    /// The step before any pixel: what the node will make and how it will read, from its parameters and
    /// the shapes of its image inputs (`inputs`, by input name; an input whose shape is not known before
    /// the run is absent). It is called on the node configured with its parameters only, before its
    /// inputs are connected, so it reads their shapes from `inputs`, never the inputs themselves. The
    /// engine plans with it (shrink-on-load) and validation holds the sizes it gives to the output limit;
    /// the verifier checks that ``run()`` makes what it said. By default nothing is known.
    func prepare(_ inputs: [String: ImageShape]) -> Preparation
    /// Computes the outputs from the inputs and parameters.
    func run() throws -> NodeOutputs
    /// Checks a value a program supplies in place of this node's first output (`Graph.run(supplying:)`),
    /// before anything runs: an `input` holds it to its declared size and channels. By default any
    /// value of the output's type is taken.
    func check(supplied value: NodeValue) throws(NodeProblem)
}

extension ConfiguredNode {
    public func validate() throws(NodeProblem) {}

    public func prepare(_ inputs: [String: ImageShape]) -> Preparation { Preparation() }

    public func check(supplied value: NodeValue) throws(NodeProblem) {}

    public func validate(in context: ValidationContext) -> [NodeProblem] {
        do {
            try validate()
            return []
        } catch {
            return [error]
        }
    }
}

/// What is known of a node before it runs, besides its parameters' values.
public struct ValidationContext: Sendable {
    /// The type of value each connected input carries, by input name (an input that takes several
    /// types, as `save`'s, gets one of them).
    public var inputTypes: [String: PortType]
    /// The parameters the graph (or `--set`) gives a value, by name; the others have their defaults.
    public var setParameters: Set<String>

    public init(inputTypes: [String: PortType] = [:], setParameters: Set<String> = []) {
        self.inputTypes = inputTypes
        self.setParameters = setParameters
    }
}

/// What a node knows of an image input before any pixel of it (``ConfiguredNode/prepare(_:)``).
public struct ImageShape: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var layout: PixelLayout
    public var depth: SampleDepth

    public init(width: Int, height: Int, layout: PixelLayout, depth: SampleDepth) {
        self.width = width
        self.height = height
        self.layout = layout
        self.depth = depth
    }

    /// The shape of `image`.
    public init(of image: Image) {
        self.init(width: image.width, height: image.height, layout: image.layout, depth: image.depth)
    }
}

/// What a node says before any pixel (``ConfiguredNode/prepare(_:)``); what it leaves out is not known
/// until it runs.
public struct Preparation: Sendable, Equatable {
    /// The sizes of its output images, by output name.
    public var outputSizes: [String: Size]
    /// For an image input the node reads only to make it smaller (resize): how many times smaller its
    /// output is, on the side shrunk least, by input name. The engine may then decode that input's file
    /// smaller (shrink-on-load) and the node read that decode instead (``Image/smallerDecode``).
    public var inputShrinks: [String: Double]

    public init(outputSizes: [String: Size] = [:], inputShrinks: [String: Double] = [:]) {
        self.outputSizes = outputSizes
        self.inputShrinks = inputShrinks
    }

    /// A width and a height in pixels.
    public struct Size: Sendable, Equatable, CustomStringConvertible {
        public var width: Int
        public var height: Int

        public init(width: Int, height: Int) {
            self.width = width
            self.height = height
        }

        public var description: String { "\(width)x\(height)" }
    }
}

/// A problem with a node's parameters, found by ``ConfiguredNode/validate()``.
public struct NodeProblem: Error, Sendable, Equatable {
    /// The parameter whose position the message points at.
    public var parameter: String
    public var message: String

    public init(parameter: String, _ message: String) {
        self.parameter = parameter
        self.message = message
    }
}

/// The values a node's run produced, by output name.
public struct NodeOutputs: Sendable {
    public var values: [String: NodeValue]

    public init(_ values: [String: NodeValue]) { self.values = values }

    /// The only output of a node with one.
    public init(_ value: NodeValue) { values = ["": value] }

    /// A sink's outputs: none.
    public static let none = NodeOutputs([:])
}
