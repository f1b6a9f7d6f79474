import CTesseraPlugin
import Foundation
import TesseraCore

/// A plugin's node, configured: `run()` asks the plugin to make an instance for these parameters and
/// input sizes, and returns a lazy image whose kernel calls the instance's region-of-interest and
/// render functions. The scheduler runs it like any kernel, tile by tile on its workers.
struct PluginNode: ConfiguredNode {
    let plugin: Plugin
    let op: String
    let parameters: [ParameterDeclaration]
    let inputs: [InputDeclaration]
    let values: [String: any ParameterValue]
    let connected: [String: NodeValue]

    func run() throws -> NodeOutputs {
        var images: [Image?] = []
        var infos: [tessera_image_info] = []
        for input in inputs {
            guard case .image(let image)? = connected[input.name] else {
                images.append(nil)
                infos.append(tessera_image_info(width: 0, height: 0, layout: 0, depth: 0))
                continue
            }
            images.append(image)
            infos.append(image.pluginInfo)
        }
        let json = parametersJSON()
        var instancePointer: OpaquePointer?
        var info = tessera_instance_info()
        var message = [CChar](repeating: 0, count: 1024)
        let code = message.withUnsafeMutableBufferPointer { text in
            infos.withUnsafeBufferPointer { infos in
                plugin.table.create(
                    op, json, infos.baseAddress, Int32(infos.count), &instancePointer, &info, text.baseAddress,
                    text.count)
            }
        }
        guard code == TESSERA_OK, let instancePointer else {
            throw ImageError(
                path: plugin.path, message: "\(op): \(Self.text(message, code: code, default: "create failed"))")
        }
        let instance = PluginInstance(plugin: plugin, op: op, pointer: instancePointer)
        let output = info.output
        guard output.width > 0, output.height > 0, output.width <= 1 << 30, output.height <= 1 << 30,
            let layout = PixelLayout(pluginCode: output.layout)
        else {
            throw ImageError(
                path: plugin.path,
                message: "\(op): the plugin made an output of \(output.width)x\(output.height), layout \(output.layout)"
            )
        }
        var kernelInputs: [KernelInput] = []
        let ports = withUnsafeBytes(of: info.input_ports) { Array($0.bindMemory(to: Int32.self)) }
        let edges = withUnsafeBytes(of: info.edges) { Array($0.bindMemory(to: Int32.self)) }
        guard info.input_count >= 0, info.input_count <= TESSERA_MAX_INPUTS else {
            throw ImageError(path: plugin.path, message: "\(op): the plugin declared \(info.input_count) kernel inputs")
        }
        for index in 0..<Int(info.input_count) {
            let port = Int(ports[index])
            guard images.indices.contains(port), let image = images[port] else {
                throw ImageError(
                    path: plugin.path, message: "\(op): kernel input \(index) reads port \(port), which has no image")
            }
            guard let edge = EdgeMode(pluginCode: edges[index]) else {
                throw ImageError(
                    path: plugin.path,
                    message: "\(op): kernel input \(index) has edge mode \(edges[index]), which is neither "
                        + "TESSERA_EDGE_CLAMP (\(TESSERA_EDGE_CLAMP)) nor TESSERA_EDGE_TRANSPARENT "
                        + "(\(TESSERA_EDGE_TRANSPARENT))")
            }
            kernelInputs.append(KernelInput(image, edge: edge))
        }
        let depth = SampleDepth(pluginBits: output.depth)
        return NodeOutputs(
            .image(
                Image(
                    width: Int(output.width), height: Int(output.height), layout: layout, depth: depth,
                    kernel: PluginKernel(instance: instance, channels: layout.channels), inputs: kernelInputs)))
    }

    /// Every parameter by name, defaults filled in, paths resolved, as the plugin's `create` reads them.
    func parametersJSON() -> String { Self.parametersJSON(parameters, values: values) }

    /// `values` (and the defaults of the parameters not in it) as JSON. A ratio goes as its number, so a C
    /// plugin reads `4:3` as 1.3333 and never parses it.
    static func parametersJSON(_ parameters: [ParameterDeclaration], values: [String: any ParameterValue]) -> String {
        var object: [String: Any] = [:]
        for parameter in parameters {
            if let path = values[parameter.name] as? FilePath {
                object[parameter.name] = path.resolved
            } else if let ratio = values[parameter.name] as? Ratio {
                object[parameter.name] = ratio.value
            } else if let value = values[parameter.name] {
                object[parameter.name] = value.literal.jsonObject
            } else if parameter.type == .ratio, let defaultValue = parameter.defaultValue,
                let ratio = try? Ratio(literal: defaultValue, context: ParameterContext(baseFolder: ""))
            {
                object[parameter.name] = ratio.value
            } else if let defaultValue = parameter.defaultValue {
                object[parameter.name] = defaultValue.jsonObject
            }
        }
        return JSON.text(object)
    }

    static func text(_ message: [CChar], code: Int32, default fallback: String) -> String {
        let text = message.withUnsafeBufferPointer { buffer -> String in
            guard let base = buffer.baseAddress, buffer.contains(0) else {
                return String(decoding: buffer.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            return String(cString: base)
        }
        return (text.isEmpty ? fallback : text) + " (code \(code))"
    }
}

/// An instance made by a plugin's `create`, destroyed with the last kernel holding it.
final class PluginInstance: @unchecked Sendable {
    let plugin: Plugin
    let op: String
    let pointer: OpaquePointer

    init(plugin: Plugin, op: String, pointer: OpaquePointer) {
        self.plugin = plugin
        self.op = op
        self.pointer = pointer
    }

    deinit { plugin.table.destroy(pointer) }
}

/// The kernel of a plugin node: region of interest and render through the plugin's C functions.
struct PluginKernel: ImageKernel {
    let instance: PluginInstance
    let channels: Int

    /// The most pixels a plugin may ask for of one input for one output region (1 GiB of RGBA floats).
    static let regionLimit: Int64 = 1 << 26

    func inputRegion(for output: Rect, input index: Int) -> Rect {
        pluginRegion(for: output, input: index) ?? .empty
    }

    /// The plugin's region of interest, if it is one that can be rendered: a size that is not negative
    /// and not absurd, near the image. A plugin's answer is not trusted to be sane: a wrong one is an
    /// error at render time (naming the plugin), never a huge allocation.
    func pluginRegion(for output: Rect, input index: Int) -> Rect? {
        let region = instance.plugin.table.input_region(instance.pointer, output.pluginRect, Int32(index))
        let far: Int64 = 1 << 40
        guard region.width >= 0, region.height >= 0, region.width <= Self.regionLimit,
            region.height <= Self.regionLimit, region.width * region.height <= Self.regionLimit,
            abs(region.x) < far, abs(region.y) < far
        else { return nil }
        return Rect(region)
    }

    func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws {
        for index in inputs.indices where pluginRegion(for: output.region, input: index) == nil {
            let region = instance.plugin.table.input_region(instance.pointer, output.region.pluginRect, Int32(index))
            throw ImageError(
                path: instance.plugin.path,
                message: "\(instance.op): input_region gave \(region.width)x\(region.height) at (\(region.x), "
                    + "\(region.y)) of input \(index) for \(output.region.width)x\(output.region.height) at "
                    + "(\(output.region.x), \(output.region.y)), which cannot be rendered")
        }
        var message = [CChar](repeating: 0, count: 1024)
        let region = output.region.pluginRect
        let channels = Int32(output.channels)
        let code = try output.samples.withUnsafeMutableBufferPointer { samples in
            try Self.withBuffers(inputs) { buffers in
                var target = tessera_buffer(region: region, channels: channels, samples: samples.baseAddress)
                return message.withUnsafeMutableBufferPointer { text in
                    instance.plugin.table.render(
                        instance.pointer, &target, buffers.baseAddress, Int32(buffers.count), text.baseAddress,
                        text.count)
                }
            }
        }
        guard code == TESSERA_OK else {
            throw ImageError(
                path: instance.plugin.path,
                message: "\(instance.op): \(PluginNode.text(message, code: code, default: "render failed"))")
        }
    }

    /// Calls `body` with C descriptions of `inputs`, whose samples stay valid during the call.
    static func withBuffers<Result>(
        _ inputs: [PixelBuffer], _ body: (UnsafeBufferPointer<tessera_buffer>) throws -> Result
    ) throws -> Result {
        var described: [tessera_buffer] = []
        described.reserveCapacity(inputs.count)
        func nest(_ index: Int) throws -> Result {
            guard index < inputs.count else { return try described.withUnsafeBufferPointer(body) }
            return try inputs[index].samples.withUnsafeBufferPointer { samples in
                described.append(
                    tessera_buffer(
                        region: inputs[index].region.pluginRect, channels: Int32(inputs[index].channels),
                        samples: UnsafeMutablePointer(mutating: samples.baseAddress)))
                return try nest(index + 1)
            }
        }
        return try nest(0)
    }
}
