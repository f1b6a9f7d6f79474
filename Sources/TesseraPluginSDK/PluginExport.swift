@_exported import TesseraCore
import CTesseraPlugin
import Foundation
import TesseraEngine

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
                    Unmanaged<Instance>.fromOpaque(UnsafeRawPointer(instance)).release()
                },
                // Version 2's value ports and global nodes are not exported from Swift yet.
                create_v2: nil, run: nil))
    }

    static func create(
        op: UnsafePointer<CChar>?, parameters: UnsafePointer<CChar>?, inputs: UnsafePointer<tessera_image_info>?,
        inputCount: Int32, instance: UnsafeMutablePointer<OpaquePointer?>?,
        info: UnsafeMutablePointer<tessera_instance_info>?, message: Message
    ) -> Int32 {
        guard let op, let parameters, let instance, let info,
            let declaration = current?.catalog?.declaration(
                op: String(cString: op))
        else { return message.say("this plugin has no such node", code: TESSERA_ERROR_UNKNOWN_NODE) }
        // Parameters: read and checked by the same declarations as in the host.
        var values: [String: any ParameterValue] = [:]
        do {
            let given = try JSONDecoder().decode(
                [String: JSONLiteral].self, from: Data(String(cString: parameters).utf8))
            for (name, literal) in given {
                values[name] = try declaration.typedValue(
                    literal.literal, parameter: name, context: ParameterContext(baseFolder: ""))
            }
        } catch let problem as ParameterProblem {
            return message.say(problem.message, code: TESSERA_ERROR_PARAMETERS)
        } catch {
            return message.say("the parameters are not valid JSON: \(error)", code: TESSERA_ERROR_PARAMETERS)
        }
        // Inputs: stand-ins with the host's sizes, which the node's kernel names as its inputs.
        var connected: [String: NodeValue] = [:]
        for (index, input) in declaration.inputs.enumerated() where index < Int(inputCount) {
            guard let described = inputs?[index], described.width > 0, described.height > 0,
                let layout = PixelLayout(pluginCode: described.layout)
            else { continue }
            connected[input.name] = .image(
                Image(
                    width: Int(described.width), height: Int(described.height), layout: layout,
                    depth: SampleDepth(pluginBits: described.depth),
                    source: HostImage(port: index)))
        }
        let made: Instance
        let output: Image
        do {
            let node = try declaration.instantiate(parameters: values, inputs: connected)
            let context = ValidationContext(inputTypes: connected.mapValues(\.type), setParameters: Set(values.keys))
            if let problem = node.validate(in: context).first { throw problem }
            guard case .image(let image)? = try node.run().values.first?.value else {
                return message.say("the node made no image", code: TESSERA_ERROR_RENDER)
            }
            output = image
            made = try Instance(image)
        } catch let problem as NodeProblem {
            return message.say("\(problem.parameter): \(problem.message)", code: TESSERA_ERROR_PARAMETERS)
        } catch {
            return message.say("\(error)", code: TESSERA_ERROR_INPUTS)
        }
        var described = tessera_instance_info()
        described.output = tessera_image_info(
            width: Int64(output.width), height: Int64(output.height), layout: output.layout.pluginCode,
            depth: Int32(output.depth.bits))
        described.input_count = Int32(made.ports.count)
        withUnsafeMutableBytes(of: &described.input_ports) { bytes in
            for (index, port) in made.ports.enumerated() {
                bytes.storeBytes(of: Int32(port), toByteOffset: index * 4, as: Int32.self)
            }
        }
        withUnsafeMutableBytes(of: &described.edges) { bytes in
            for (index, edge) in made.edges.enumerated() {
                bytes.storeBytes(of: edge.pluginCode, toByteOffset: index * 4, as: Int32.self)
            }
        }
        info.pointee = described
        instance.pointee = OpaquePointer(Unmanaged.passRetained(made).toOpaque())
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

struct PassThrough: ImageKernel {
    func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws { output.copy(from: inputs[0]) }
}

/// An input image of the host: the plugin never renders it itself; the host hands its pixels to render.
final class HostImage: PixelSource {
    let port: Int
    init(port: Int) { self.port = port }

    func render(into buffer: inout PixelBuffer) throws {
        throw ImageError(message: "a plugin node reads its inputs only through its kernel")
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
