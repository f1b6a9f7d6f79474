@_exported import TesseraCore
import CTesseraPlugin
import Foundation
import TesseraCatalog
import TesseraPluginHost

/// The Swift plugin SDK: write nodes exactly as Tessera's built-ins are written (a `Node` struct with
/// `@Parameter` and `@Input` properties, returning an image made by an `ImageKernel`), and export them
/// from a shared library with one line:
///
///     @_cdecl("tessera_plugin_entry")
///     public func entry() -> UnsafeRawPointer { TesseraPluginSDK.export([Vignette.self]) }
///
/// The library links its own copy of Tessera's Swift modules (a `.dynamic` library product depending on
/// this one). Only the C types of `tessera_plugin.h` cross to the host: the catalog goes as the JSON of
/// `tessera nodes --json`, made from the node types by the host's own declaration code; parameters come
/// back as JSON and are read and checked by it too; pixels cross as Float32 buffers.
public enum TesseraPluginSDK {
    /// The plugin table for `types` (made once; later calls return the same table).
    public static func export(_ types: [any Node.Type]) -> UnsafeRawPointer {
        Exported.table(for: types)
    }
}

/// The plugin's one table and catalog. C function pointers cannot capture, so they find these here.
final class Exported: @unchecked Sendable {  // the table is written once, in init
    let catalog: Catalog?
    let table: UnsafeMutablePointer<tessera_plugin>

    private static let shared = Locked<Exported?>(nil)

    static func table(for types: [any Node.Type]) -> UnsafeRawPointer {
        shared.withLock { shared in
            if let shared { return UnsafeRawPointer(shared.table) }
            let made = Exported(types)
            shared = made
            return UnsafeRawPointer(made.table)
        }
    }

    static var current: Exported? { shared.withLock { $0 } }

    private init(_ types: [any Node.Type]) {
        let json: String
        do {
            let catalog = try Catalog(types)
            self.catalog = catalog
            json = catalog.json
        } catch {
            catalog = nil
            // The host reports this as the plugin's error, naming the file.
            json = "{\"error\": \"\(error.description.replacingOccurrences(of: "\"", with: "'"))\"}"
        }
        table = .allocate(capacity: 1)
        table.initialize(
            to: tessera_plugin(
                abi_version: UInt32(TESSERA_PLUGIN_ABI_VERSION), catalog_json: UnsafePointer(strdup(json)),
                create: { op, parameters, inputs, inputCount, instance, info, message, capacity in
                    Exported.create(
                        op: op, parameters: parameters, inputs: inputs, inputCount: inputCount, instance: instance,
                        info: info, message: Message(text: message, capacity: capacity))
                },
                input_region: { instance, output, input in
                    guard let instance else { return output }
                    let kernel = Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(instance)).takeUnretainedValue()
                    return kernel.kernel.inputRegion(for: Rect(output), input: Int(input)).pluginRect
                },
                render: { instance, output, inputs, inputCount, message, capacity in
                    Exported.render(
                        instance: instance, output: output, inputs: inputs, inputCount: inputCount,
                        message: Message(text: message, capacity: capacity))
                },
                destroy: { instance in
                    guard let instance else { return }
                    // A kernel node's Instance or a global node's GlobalInstance.
                    Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(instance)).release()
                },
                create_v2: { op, parameters, ports, portCount, instance, info, message, capacity in
                    Exported.create(
                        op: op, parameters: parameters, ports: ports, portCount: portCount, instance: instance,
                        info: info, message: Message(text: message, capacity: capacity))
                },
                run: nil,
                run_v3: { instance, inputs, outputs, message, capacity in
                    Exported.run(
                        instance: instance, inputs: inputs, outputs: outputs,
                        message: Message(text: message, capacity: capacity))
                }))
    }

    /// The node `op` and its parameters, read and checked by the same declarations as in the host.
    static func configure(op: UnsafePointer<CChar>?, parameters: UnsafePointer<CChar>?) throws(Failure) -> (
        NodeDeclaration, [String: any ParameterValue]
    ) {
        guard let op, let parameters, let declaration = current?.catalog?.declaration(op: String(cString: op)) else {
            throw Failure("this plugin has no such node", code: TESSERA_ERROR_UNKNOWN_NODE)
        }
        var values: [String: any ParameterValue] = [:]
        do {
            let given = try JSONDecoder().decode(
                [String: JSONLiteral].self, from: Data(String(cString: parameters).utf8))
            for (name, literal) in given {
                values[name] = try declaration.typedValue(
                    literal.literal, parameter: name, context: ParameterContext(baseFolder: ""))
            }
        } catch let problem as ParameterProblem {
            throw Failure(problem.message, code: TESSERA_ERROR_PARAMETERS)
        } catch {
            throw Failure("the parameters are not valid JSON: \(error)", code: TESSERA_ERROR_PARAMETERS)
        }
        return (declaration, values)
    }

    /// An input image of the host as the node sees it when configured: its size, pixels that only the
    /// host renders (``HostImage``).
    static func standIn(_ described: tessera_image_info, port: Int) -> NodeValue? {
        guard described.width > 0, described.height > 0, let layout = PixelLayout(pluginCode: described.layout) else {
            return nil
        }
        return .image(
            Image(
                width: Int(described.width), height: Int(described.height), layout: layout,
                depth: SampleDepth(pluginBits: described.depth), source: HostImage(port: port)))
    }

    /// Version 1: a kernel node from its parameters and its input images' sizes.
    static func create(
        op: UnsafePointer<CChar>?, parameters: UnsafePointer<CChar>?, inputs: UnsafePointer<tessera_image_info>?,
        inputCount: Int32, instance: UnsafeMutablePointer<OpaquePointer?>?,
        info: UnsafeMutablePointer<tessera_instance_info>?, message: Message
    ) -> Int32 {
        do throws(Failure) {
            let (declaration, values) = try configure(op: op, parameters: parameters)
            var connected: [String: NodeValue] = [:]
            for (index, input) in declaration.inputs.enumerated() where index < Int(inputCount) {
                if let inputs, let image = standIn(inputs[index], port: index) { connected[input.name] = image }
            }
            return try kernelInstance(declaration, values, connected, instance: instance, info: info)
        } catch {
            return message.say(error.message, code: error.code)
        }
    }

    /// Version 2: any node, its value inputs decoded from the host's JSON. A kernel node is made as in
    /// version 1; a global node is checked now and run by ``run(instance:inputs:outputs:message:)``.
    static func create(
        op: UnsafePointer<CChar>?, parameters: UnsafePointer<CChar>?, ports: UnsafePointer<tessera_port>?,
        portCount: Int32, instance: UnsafeMutablePointer<OpaquePointer?>?,
        info: UnsafeMutablePointer<tessera_instance_info>?, message: Message
    ) -> Int32 {
        do throws(Failure) {
            let (declaration, values) = try configure(op: op, parameters: parameters)
            var connected: [String: NodeValue] = [:]
            var images: [Int: tessera_image_info] = [:]
            for (index, input) in declaration.inputs.enumerated() where index < Int(portCount) {
                guard let port = ports?[index] else { continue }
                if input.type == .image {
                    guard let image = standIn(port.image, port: index) else { continue }
                    connected[input.name] = image
                    images[index] = port.image
                } else if let json = port.value_json {
                    do throws(ValueJSON.ParseError) {
                        connected[input.name] = try ValueJSON.parse(String(cString: json), as: input.type)
                    } catch {
                        throw Failure("\(input.name): \(error)", code: TESSERA_ERROR_INPUTS)
                    }
                }
            }
            guard declaration.access == .global else {
                return try kernelInstance(declaration, values, connected, instance: instance, info: info)
            }
            guard let instance, let info else { throw Failure("no instance or info", code: TESSERA_ERROR_RENDER) }
            let made = GlobalInstance(declaration: declaration, values: values, connected: connected, images: images)
            do {
                let node = try declaration.instantiate(parameters: values, inputs: connected)
                let context = ValidationContext(
                    inputTypes: connected.mapValues(\.type), setParameters: Set(values.keys))
                if let problem = node.validate(in: context).first { throw problem }
            } catch let problem as NodeProblem {
                throw Failure("\(problem.parameter): \(problem.message)", code: TESSERA_ERROR_PARAMETERS)
            } catch {
                throw Failure("\(error)", code: TESSERA_ERROR_INPUTS)
            }
            info.pointee = tessera_instance_info()
            instance.pointee = OpaquePointer(Unmanaged.passRetained(made).toOpaque())
            return TESSERA_OK
        } catch {
            return message.say(error.message, code: error.code)
        }
    }

    /// Runs a kernel node with stand-ins for its images, and hands the host the kernel it returned.
    static func kernelInstance(
        _ declaration: NodeDeclaration, _ values: [String: any ParameterValue], _ connected: [String: NodeValue],
        instance: UnsafeMutablePointer<OpaquePointer?>?, info: UnsafeMutablePointer<tessera_instance_info>?
    ) throws(Failure) -> Int32 {
        guard let instance, let info else { throw Failure("no instance or info", code: TESSERA_ERROR_RENDER) }
        let made: Instance
        let output: Image
        do {
            let node = try declaration.instantiate(parameters: values, inputs: connected)
            let context = ValidationContext(inputTypes: connected.mapValues(\.type), setParameters: Set(values.keys))
            if let problem = node.validate(in: context).first { throw problem }
            guard case .image(let image)? = try node.run().values.first?.value else {
                throw Failure("the node made no image", code: TESSERA_ERROR_RENDER)
            }
            output = image
            made = try Instance(image)
        } catch let failure as Failure {
            throw failure
        } catch let problem as NodeProblem {
            throw Failure("\(problem.parameter): \(problem.message)", code: TESSERA_ERROR_PARAMETERS)
        } catch {
            throw Failure("\(error)", code: TESSERA_ERROR_INPUTS)
        }
        info.pointee = made.info(output)
        instance.pointee = OpaquePointer(Unmanaged.passRetained(made).toOpaque())
        return TESSERA_OK
    }

    /// A global node's work: its images read from the host as the node asks for their pixels, the node
    /// run as in the host, and each output handed back: a value as JSON, an image the node made with a
    /// kernel over its inputs (or over nothing: a small buffer the kernel holds) as that kernel, for the
    /// host's scheduler to render tile by tile; any other image whole.
    static func run(
        instance: OpaquePointer?, inputs: UnsafePointer<tessera_inputs>?, outputs: UnsafePointer<tessera_outputs>?,
        message: Message
    ) -> Int32 {
        guard let instance, let inputs, let outputs,
            let global = Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(instance)).takeUnretainedValue()
                as? GlobalInstance
        else { return message.say("not a global node's instance", code: TESSERA_ERROR_RENDER) }
        let declaration = global.declaration
        let reader = HostReader(inputs.pointee)
        // Reads are the host's only during this call: an image kept past it fails to render, never crashes.
        defer { reader.close() }
        var connected = global.connected
        for (index, described) in global.images {
            guard let layout = PixelLayout(pluginCode: described.layout) else { continue }
            connected[declaration.inputs[index].name] = .image(
                Image(
                    width: Int(described.width), height: Int(described.height), layout: layout,
                    depth: SampleDepth(pluginBits: described.depth), source: HostImage(port: index, reader: reader)))
        }
        let produced: [String: NodeValue]
        do {
            produced = try declaration.instantiate(parameters: global.values, inputs: connected).run().values
        } catch let problem as NodeProblem {
            return message.say("\(problem.parameter): \(problem.message)", code: TESSERA_ERROR_RENDER)
        } catch {
            return message.say("\(error)", code: TESSERA_ERROR_RENDER)
        }
        let sink = outputs.pointee
        for (index, output) in declaration.outputs.enumerated() {
            guard let value = produced[output.name] ?? (index == 0 ? produced[""] : nil) else {
                return message.say("the node made no output '\(output.name)'", code: TESSERA_ERROR_RENDER)
            }
            let code: Int32
            if case .image(let image) = value, let setKernel = sink.set_kernel, let kernel = try? Instance(image) {
                var info = kernel.info(image)
                code = setKernel(
                    sink.results, Int32(index), OpaquePointer(Unmanaged.passRetained(kernel).toOpaque()), &info)
            } else if case .image(let image) = value {
                let pixels: PixelBuffer
                do {
                    pixels = try image.pixels()
                } catch {
                    return message.say("\(error)", code: TESSERA_ERROR_RENDER)
                }
                code = pixels.samples.withUnsafeBufferPointer { samples in
                    var buffer = tessera_buffer(
                        region: pixels.region.pluginRect, channels: Int32(pixels.channels),
                        samples: UnsafeMutablePointer(mutating: samples.baseAddress))
                    return sink.set_image(
                        sink.results, Int32(index), &buffer, image.layout.pluginCode, Int32(image.depth.bits))
                }
            } else if let json = ValueJSON.encode(value) {
                code = sink.set_value(sink.results, Int32(index), json)
            } else {
                code = TESSERA_ERROR_RENDER
            }
            guard code == TESSERA_OK else {
                return message.say("the host refused output '\(output.name)'", code: TESSERA_ERROR_RENDER)
            }
        }
        return TESSERA_OK
    }

    static func render(
        instance: OpaquePointer?, output: UnsafeMutablePointer<tessera_buffer>?,
        inputs: UnsafePointer<tessera_buffer>?, inputCount: Int32, message: Message
    ) -> Int32 {
        guard let instance, let output, let samples = output.pointee.samples else {
            return message.say("no instance or output buffer", code: TESSERA_ERROR_RENDER)
        }
        let made = Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(instance)).takeUnretainedValue()
        guard Int(inputCount) == made.ports.count, inputCount == 0 || inputs != nil else {
            return message.say(
                "expected \(made.ports.count) input buffers, got \(inputCount)", code: TESSERA_ERROR_RENDER)
        }
        var buffers: [PixelBuffer] = []
        for index in 0..<Int(inputCount) {
            guard let buffer = inputs?[index], let copied = PixelBuffer(buffer) else {
                return message.say("input buffer \(index) is not 1 or 4 channels", code: TESSERA_ERROR_RENDER)
            }
            buffers.append(copied)
        }
        let region = Rect(output.pointee.region)
        var result = PixelBuffer(region: region, channels: made.channels)
        do {
            try made.kernel.render(into: &result, from: buffers)
        } catch {
            return message.say("\(error)", code: TESSERA_ERROR_RENDER)
        }
        result.samples.withUnsafeBufferPointer { rendered in
            guard let base = rendered.baseAddress else { return }
            samples.update(from: base, count: rendered.count)
        }
        return TESSERA_OK
    }
}

/// A failure of a C function: its message and return code.
struct Failure: Error {
    var message: String
    var code: Int32
    init(_ message: String, code: Int32) {
        self.message = message
        self.code = code
    }
}

/// A global node, configured: run by `run_v3`, its images then read from the host.
final class GlobalInstance: @unchecked Sendable {  // never changes after create_v2
    let declaration: NodeDeclaration
    let values: [String: any ParameterValue]
    /// Value inputs, and stand-ins for the images until `run_v3`.
    let connected: [String: NodeValue]
    /// Each image input's port and what create_v2 was told of it.
    let images: [Int: tessera_image_info]

    init(
        declaration: NodeDeclaration, values: [String: any ParameterValue], connected: [String: NodeValue],
        images: [Int: tessera_image_info]
    ) {
        self.declaration = declaration
        self.values = values
        self.connected = connected
        self.images = images
    }
}

/// A node's kernel with the host input port each of its inputs reads.
final class Instance: Sendable {
    let kernel: any ImageKernel
    let channels: Int
    let ports: [Int]
    let edges: [EdgeMode]

    init(_ image: Image) throws {
        channels = image.channels
        if let host = image.source as? HostImage {
            // The node passes an input through: a kernel that copies it.
            kernel = PassThrough()
            ports = [host.port]
            edges = [.clamp]
            return
        }
        guard let source = image.source as? KernelSource else {
            throw NodeConfigurationError("a plugin node returns an image made by an ImageKernel from its inputs")
        }
        var ports: [Int] = []
        for input in source.inputs {
            guard let host = input.image.source as? HostImage else {
                throw NodeConfigurationError("a plugin node's kernel reads only the node's own input images")
            }
            ports.append(host.port)
        }
        guard ports.count <= Int(TESSERA_MAX_INPUTS) else {
            throw NodeConfigurationError("a plugin node's kernel reads at most \(TESSERA_MAX_INPUTS) images")
        }
        kernel = source.kernel
        self.ports = ports
        edges = source.inputs.map(\.edge)
    }
}

extension Instance {
    /// What `create` (or `set_kernel`) tells the host of this kernel making `output`.
    func info(_ output: Image) -> tessera_instance_info {
        var described = tessera_instance_info()
        described.output = tessera_image_info(
            width: Int64(output.width), height: Int64(output.height), layout: output.layout.pluginCode,
            depth: Int32(output.depth.bits))
        described.input_count = Int32(ports.count)
        withUnsafeMutableBytes(of: &described.input_ports) { bytes in
            for (index, port) in ports.enumerated() {
                bytes.storeBytes(of: Int32(port), toByteOffset: index * 4, as: Int32.self)
            }
        }
        withUnsafeMutableBytes(of: &described.edges) { bytes in
            for (index, edge) in edges.enumerated() {
                bytes.storeBytes(of: edge.pluginCode, toByteOffset: index * 4, as: Int32.self)
            }
        }
        return described
    }
}

struct PassThrough: ImageKernel {
    func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws { output.copy(from: inputs[0]) }
}

/// An input image of the host. A kernel node never renders it itself (the host hands its kernel the
/// pixels); a global node reads it through the host while `run_v3` runs (``HostReader``).
final class HostImage: PixelSource {
    let port: Int
    let reader: HostReader?

    init(port: Int, reader: HostReader? = nil) {
        self.port = port
        self.reader = reader
    }

    func render(into buffer: inout PixelBuffer) throws {
        guard let reader else { throw ImageError(message: "a plugin node reads its inputs only through its kernel") }
        try reader.read(port, into: &buffer)
    }

    /// 8-bit samples as they are rounded (`Image.encode` with an encoder of packed 8-bit samples, 1, 3 or 4
    /// a pixel) come from the host as bytes (version 4's `read_bytes`): a file's 8-bit image crosses at a
    /// quarter of its Float32 size, or less, and is never converted to floats and back. Anything else (16
    /// bits, 2 bands, a flattening encoder) is rendered as Float32 and encoded here.
    func encode(
        _ region: Rect, with encoder: SampleEncoder, scratch: inout PixelBuffer, into bytes: UnsafeMutableRawPointer,
        rowBytes: Int
    ) throws {
        guard let reader, let packed = encoder.packed, packed.depth == .uint8, [1, 3, 4].contains(packed.bands),
            encoder.bytesPerPixel == packed.bands
        else {
            return try encodeRendering(region, with: encoder, scratch: &scratch, into: bytes, rowBytes: rowBytes)
        }
        try reader.read(port, region: region, bands: packed.bands, into: bytes, rowBytes: rowBytes)
    }
}

/// The host's `tessera_inputs` during one `run_v3` call, closed when the call returns.
final class HostReader: @unchecked Sendable {  // used on the thread running run_v3; `open` is locked
    private let inputs: tessera_inputs
    private let open = Locked(true)

    init(_ inputs: tessera_inputs) { self.inputs = inputs }

    func close() { open.withLock { $0 = false } }

    func read(_ port: Int, into buffer: inout PixelBuffer) throws {
        guard open.withLock({ $0 }), let read = inputs.read else {
            throw ImageError(message: "a global node reads its input images only while it runs")
        }
        let region = buffer.region.pluginRect
        let code = buffer.samples.withUnsafeMutableBufferPointer {
            read(inputs.source, Int32(port), region, $0.baseAddress)
        }
        guard code == TESSERA_OK else {
            throw ImageError(message: "the host could not read input \(port) (code \(code))")
        }
    }

    /// `region` of input `port` as 8-bit samples, `bands` a pixel, into rows `rowBytes` apart: straight
    /// there when the rows are packed, else through a buffer of packed rows.
    func read(_ port: Int, region: Rect, bands: Int, into bytes: UnsafeMutableRawPointer, rowBytes: Int) throws {
        guard open.withLock({ $0 }), let read = inputs.read_bytes else {
            throw ImageError(message: "a global node reads its input images only while it runs")
        }
        let packedRowBytes = region.width * bands
        let code: Int32
        if rowBytes == packedRowBytes {
            code = read(
                inputs.source, Int32(port), region.pluginRect, Int32(bands), bytes.assumingMemoryBound(to: UInt8.self))
        } else {
            var rows = [UInt8](repeating: 0, count: region.height * packedRowBytes)
            code = rows.withUnsafeMutableBufferPointer {
                read(inputs.source, Int32(port), region.pluginRect, Int32(bands), $0.baseAddress)
            }
            if code == TESSERA_OK {
                rows.withUnsafeBytes { rows in
                    guard let base = rows.baseAddress else { return }
                    for y in 0..<region.height {
                        (bytes + y * rowBytes).copyMemory(from: base + y * packedRowBytes, byteCount: packedRowBytes)
                    }
                }
            }
        }
        guard code == TESSERA_OK else {
            throw ImageError(message: "the host could not read input \(port) (code \(code))")
        }
    }
}

/// Where a C function writes its error message.
struct Message {
    let text: UnsafeMutablePointer<CChar>?
    let capacity: Int

    func say(_ message: String, code: Int32) -> Int32 {
        guard let text, capacity > 0 else { return code }
        let bytes = Array(message.utf8.prefix(capacity - 1))
        for (index, byte) in bytes.enumerated() { text[index] = CChar(bitPattern: byte) }
        text[bytes.count] = 0
        return code
    }
}

extension PixelBuffer {
    /// A copy of a host buffer.
    init?(_ buffer: tessera_buffer) {
        guard buffer.channels == 1 || buffer.channels == 4, buffer.region.width >= 0, buffer.region.height >= 0 else {
            return nil
        }
        let region = Rect(buffer.region)
        let count = region.area * Int(buffer.channels)
        guard count == 0 || buffer.samples != nil else { return nil }
        let samples = count == 0 ? [] : Array(UnsafeBufferPointer(start: buffer.samples, count: count))
        self.init(region: region, channels: Int(buffer.channels), samples: samples)
    }
}
