import TesseraCatalog
import CTesseraPlugin
import Foundation
import TesseraCore

/// A plugin's node, configured: `run()` asks the plugin to make an instance for these parameters and
/// input sizes, and returns a lazy image whose kernel calls the instance's region-of-interest and
/// render functions. The scheduler runs it like any kernel, tile by tile on its workers.
struct PluginNode: ConfiguredNode {
    let plugin: Plugin
    let op: String
    let access: AccessPattern
    let parameters: [ParameterDeclaration]
    let inputs: [InputDeclaration]
    let outputs: [OutputDeclaration]
    let values: [String: any ParameterValue]
    let connected: [String: NodeValue]

    func run() throws -> NodeOutputs {
        let images: [Image?] = inputs.map { input in
            if case .image(let image)? = connected[input.name] { return image }
            return nil
        }
        let (instance, info) = try create()
        if access == .global { return try runWhole(instance, images: images) }
        return NodeOutputs(.image(try Self.kernelImage(instance, info, images: images, plugin: plugin, op: op)))
    }

    /// The image a plugin instance's kernel makes, as `info` describes it, reading the node's input
    /// `images` (a kernel node's output, or a global node's output given as a kernel), every field of
    /// `info` checked first.
    static func kernelImage(
        _ instance: PluginInstance, _ info: tessera_instance_info, images: [Image?], plugin: Plugin, op: String
    ) throws -> Image {
        guard plugin.table.input_region != nil, plugin.table.render != nil else {
            throw ImageError(path: plugin.path, message: "\(op): the plugin table has no input_region or render")
        }
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
        return Image(
            width: Int(output.width), height: Int(output.height), layout: layout,
            depth: SampleDepth(pluginBits: output.depth),
            kernel: PluginKernel(instance: instance, channels: layout.channels), inputs: kernelInputs)
    }

    /// Asks the plugin for an instance: through `create_v2` with every input port (an image's size or a
    /// value's JSON) when the plugin has it, else through version 1's `create` with the images' sizes.
    private func create() throws -> (PluginInstance, tessera_instance_info) {
        let json = parametersJSON()
        var instancePointer: OpaquePointer?
        var info = tessera_instance_info()
        var message = [CChar](repeating: 0, count: 1024)
        let infos = inputs.map { input -> tessera_image_info in
            guard case .image(let image)? = connected[input.name] else {
                return tessera_image_info(width: 0, height: 0, layout: 0, depth: 0)
            }
            return image.pluginInfo
        }
        let code: Int32
        if let create = plugin.table.create_v2 {
            // The values' JSON, kept alive (strdup) until the call returns.
            let texts: [UnsafeMutablePointer<CChar>?] = inputs.map { input in
                connected[input.name].flatMap { $0.converted(to: input.type) }.flatMap(ValueJSON.encode)
                    .flatMap { strdup($0) }
            }
            defer { texts.forEach { free($0) } }
            let ports = zip(infos, texts).map { info, text in
                tessera_port(image: info, value_json: text.map { UnsafePointer($0) })
            }
            code = message.withUnsafeMutableBufferPointer { text in
                ports.withUnsafeBufferPointer { ports in
                    create(
                        op, json, ports.baseAddress, Int32(ports.count), &instancePointer, &info, text.baseAddress,
                        text.count)
                }
            }
        } else if let create = plugin.table.create {
            code = message.withUnsafeMutableBufferPointer { text in
                infos.withUnsafeBufferPointer { infos in
                    create(
                        op, json, infos.baseAddress, Int32(infos.count), &instancePointer, &info, text.baseAddress,
                        text.count)
                }
            }
        } else {
            code = TESSERA_ERROR_UNKNOWN_NODE
        }
        guard code == TESSERA_OK, let instancePointer else {
            throw ImageError(
                path: plugin.path, message: "\(op): \(Self.text(message, code: code, default: "create failed"))")
        }
        return (PluginInstance(plugin: plugin, op: op, pointer: instancePointer), info)
    }

    /// A global node: run once, reading its input images (version 3: the regions it asks for through
    /// ``PluginInputs``; version 2: rendered whole and handed over), and every output it gives back checked
    /// against its declaration before the graph sees it.
    private func runWhole(_ instance: PluginInstance, images: [Image?]) throws -> NodeOutputs {
        let collector = PluginOutputs(outputs, images: images, plugin: plugin, op: op)
        var message = [CChar](repeating: 0, count: 1024)
        var sink = tessera_outputs(
            results: OpaquePointer(Unmanaged.passUnretained(collector).toOpaque()),
            set_value: { results, output, json in
                guard let results else { return TESSERA_ERROR_INPUTS }
                guard let json else { return PluginOutputs.from(results).fail("set_value with no JSON") }
                return PluginOutputs.from(results).setValue(Int(output), json: json)
            },
            set_image: { results, output, image, layout, depth in
                guard let results else { return TESSERA_ERROR_INPUTS }
                guard let image else { return PluginOutputs.from(results).fail("set_image with no image") }
                return PluginOutputs.from(results).setImage(Int(output), image.pointee, layout: layout, depth: depth)
            },
            set_kernel: nil)
        let code: Int32
        var reader: PluginInputs?
        if let run = plugin.table.run_v3 {
            sink.set_kernel = { results, output, instance, info in
                guard let results else { return TESSERA_ERROR_INPUTS }
                return PluginOutputs.from(results).setKernel(Int(output), instance, info)
            }
            let inputs = PluginInputs(images)
            reader = inputs
            var source = tessera_inputs(
                source: OpaquePointer(Unmanaged.passUnretained(inputs).toOpaque()),
                read: { source, port, region, samples in
                    guard let source else { return TESSERA_ERROR_INPUTS }
                    return PluginInputs.from(source).read(Int(port), region: region, into: samples)
                },
                read_bytes: { source, port, region, bands, bytes in
                    guard let source else { return TESSERA_ERROR_INPUTS }
                    return PluginInputs.from(source).read(Int(port), region: region, bands: Int(bands), into: bytes)
                })
            code = message.withUnsafeMutableBufferPointer { text in
                run(instance.pointer, &source, &sink, text.baseAddress, text.count)
            }
            withExtendedLifetime(inputs) {}
        } else if let run = plugin.table.run {
            let whole = try images.map { try $0?.pixels() }
            let empty = PixelBuffer(region: .empty, channels: 1)
            code = try PluginKernel.withBuffers(whole.map { $0 ?? empty }) { buffers in
                // A value port's (or an unconnected port's) buffer is empty: no channels, no samples.
                var described = Array(buffers)
                for (index, image) in whole.enumerated() where image == nil {
                    described[index] = tessera_buffer(region: tessera_rect(), channels: 0, samples: nil)
                }
                return message.withUnsafeMutableBufferPointer { text in
                    described.withUnsafeBufferPointer { described in
                        run(
                            instance.pointer, described.baseAddress, Int32(described.count), &sink, text.baseAddress,
                            text.count)
                    }
                }
            }
        } else {
            throw ImageError(
                path: plugin.path, message: "\(op): the plugin table has no run function for a global node")
        }
        withExtendedLifetime(collector) {}
        // An input that failed to render (a damaged file) is that file's error, whatever the plugin said.
        if let failure = reader?.failure { throw failure }
        guard code == TESSERA_OK else {
            // The host's own reason, when it refused something the plugin gave, says more than the plugin's.
            let reason = (reader?.mistake ?? collector.mistake).map { " (the host refused: \($0))" } ?? ""
            throw ImageError(
                path: plugin.path, message: "\(op): \(Self.text(message, code: code, default: "run failed"))\(reason)")
        }
        do {
            if let mistake = reader?.mistake { throw NodeConfigurationError(mistake) }
            return NodeOutputs(try collector.values())
        } catch {
            throw ImageError(path: plugin.path, message: "\(op): \(error)")
        }
    }

    /// Every parameter by name, defaults filled in, paths resolved, as the plugin's `create` reads them.
    func parametersJSON() -> String { Self.parametersJSON(parameters, values: values) }

    /// `values` (and the defaults of the parameters not in it) as compact JSON, keys sorted. A ratio goes as
    /// its number, so a C plugin reads `4:3` as 1.3333 and never parses it.
    /// - Cost: written here rather than by Foundation's JSONSerialization, which took 80 µs a node for two
    ///   parameters (perf: a third of a plugin node's fixed cost, per image of a batch).
    static func parametersJSON(_ parameters: [ParameterDeclaration], values: [String: any ParameterValue]) -> String {
        var fields: [String: Literal] = [:]
        for parameter in parameters {
            if let path = values[parameter.name] as? FilePath {
                fields[parameter.name] = .string(path.resolved)
            } else if let ratio = values[parameter.name] as? Ratio {
                fields[parameter.name] = .number(ratio.value)
            } else if let value = values[parameter.name] {
                fields[parameter.name] = value.literal
            } else if parameter.type == .ratio, let defaultValue = parameter.defaultValue,
                let ratio = try? Ratio(literal: defaultValue, context: ParameterContext(baseFolder: ""))
            {
                fields[parameter.name] = .number(ratio.value)
            } else if let defaultValue = parameter.defaultValue {
                fields[parameter.name] = defaultValue
            }
        }
        return Self.json(.mapping(fields))
    }

    /// `literal` as compact JSON: keys sorted, whole numbers as integers (as `Literal.jsonObject` gives
    /// them), other numbers in Swift's shortest form that reads back the same, and null for one that is
    /// not finite (which JSON cannot hold).
    static func json(_ literal: Literal) -> String {
        switch literal {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .number(let value):
            guard value.isFinite else { return "null" }
            if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
            return "\(value)"
        case .string(let value): return JSONText.quoted(value)
        case .list(let items): return "[" + items.map(json).joined(separator: ",") + "]"
        case .mapping(let entries):
            let sorted = entries.sorted { $0.key < $1.key }
            return "{" + sorted.map { JSONText.quoted($0.key) + ":" + json($0.value) }.joined(separator: ",") + "}"
        }
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

/// A global plugin node's input images, read by its `run_v3` region by region on the thread that runs it.
final class PluginInputs {
    let images: [Image?]
    /// The first request the host refused (a wrong port, a region outside the image), reported after `run_v3`.
    private(set) var mistake: String?
    /// The first error rendering an input, thrown after `run_v3`.
    private(set) var failure: (any Error)?

    init(_ images: [Image?]) { self.images = images }

    static func from(_ pointer: OpaquePointer) -> PluginInputs {
        Unmanaged<PluginInputs>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    func read(_ port: Int, region: tessera_rect, into samples: UnsafeMutablePointer<Float>?) -> Int32 {
        guard let image = checked(port, region, samples != nil), let samples else { return TESSERA_ERROR_INPUTS }
        let rect = Rect(region)
        do {
            // One request, as the plugin made it: the input's source decides how to serve it (a small one
            // straight from its caches, a large one in bands on the workers). Through this thread's spare
            // storage, so repeated reads of a size allocate nothing after the first.
            var scratch = PixelBuffer.scratch(region: rect, channels: image.channels)
            defer { scratch.recycle() }
            try image.render(into: &scratch)
            scratch.samples.withUnsafeBufferPointer { read in
                guard let base = read.baseAddress else { return }
                samples.update(from: base, count: read.count)
            }
            return TESSERA_OK
        } catch {
            failure = failure ?? error
            return TESSERA_ERROR_RENDER
        }
    }

    /// Version 4: `region` of input `port` as 8-bit samples, `bands` a pixel, rounded as writers round.
    /// An 8-bit image loaded from a file comes as its file's bytes, never as Float32 on the way: its source
    /// encodes straight from its decoded bands (`Image.encode`); any other renders and rounds.
    func read(_ port: Int, region: tessera_rect, bands: Int, into bytes: UnsafeMutablePointer<UInt8>?) -> Int32 {
        guard let image = checked(port, region, bytes != nil) else { return TESSERA_ERROR_INPUTS }
        guard let bytes, [1, 3, 4].contains(bands) else {
            mistake = mistake ?? "read of input \(port) as \(bands) bytes a pixel, which is not 1, 3 or 4"
            return TESSERA_ERROR_INPUTS
        }
        let rect = Rect(region)
        do {
            // Float32 storage only where the source renders before it rounds (taken from the spares then).
            var scratch = PixelBuffer.scratch(region: .empty, channels: image.channels)
            defer { scratch.recycle() }
            try image.encode(
                rect, with: image.encoder(for: SampleFormat(depth: .uint8, bands: bands)), scratch: &scratch,
                into: UnsafeMutableRawPointer(bytes), rowBytes: rect.width * bands)
            return TESSERA_OK
        } catch {
            failure = failure ?? error
            return TESSERA_ERROR_RENDER
        }
    }

    /// Input `port`'s image when `region` lies inside it and there is memory to write to; otherwise the
    /// first such mistake is kept (``mistake``) and nil returned.
    private func checked(_ port: Int, _ region: tessera_rect, _ hasMemory: Bool) -> Image? {
        guard images.indices.contains(port), let image = images[port] else {
            mistake = mistake ?? "read of input \(port), which is not a connected image"
            return nil
        }
        // Compared without adding, so that no region a plugin makes up can overflow.
        guard hasMemory, region.x >= 0, region.y >= 0, region.width > 0, region.height > 0,
            region.width <= Int64(image.width) - region.x, region.height <= Int64(image.height) - region.y
        else {
            mistake =
                mistake
                ?? "read of \(region.width)x\(region.height) at (\(region.x), \(region.y)) of input \(port), "
                + "which is \(image.width)x\(image.height)"
            return nil
        }
        return image
    }
}

/// What a global plugin node's `run` gave back, port by port, until the host checks it all.
final class PluginOutputs {
    let declared: [OutputDeclaration]
    /// What a kernel output reads, and whose kernel it is.
    let images: [Image?]
    let plugin: Plugin
    let op: String
    private var given: [Int: NodeValue] = [:]
    private var texts: [Int: String] = [:]
    /// The first mistake in a call (a wrong port, a bad image), reported after `run`.
    private(set) var mistake: String?
    /// The most pixels an image output may have (the default output limit).
    static let maxPixels: Int64 = 1 << 32

    init(_ declared: [OutputDeclaration], images: [Image?], plugin: Plugin, op: String) {
        self.declared = declared
        self.images = images
        self.plugin = plugin
        self.op = op
    }

    static func from(_ pointer: OpaquePointer) -> PluginOutputs {
        Unmanaged<PluginOutputs>.fromOpaque(UnsafeRawPointer(pointer)).takeUnretainedValue()
    }

    func fail(_ text: String) -> Int32 {
        mistake = mistake ?? text
        return TESSERA_ERROR_INPUTS
    }

    func setValue(_ port: Int, json: UnsafePointer<CChar>) -> Int32 {
        guard declared.indices.contains(port), declared[port].type != .image else {
            return fail("set_value for output \(port), which is not a value output")
        }
        // Measured before it is copied: a runaway value is refused, not held.
        let length = strnlen(json, ValueJSON.maxBytes + 1)
        guard length <= ValueJSON.maxBytes else {
            return fail("output '\(declared[port].name)': more than \(ValueJSON.maxBytes) bytes of JSON")
        }
        texts[port] = String(cString: json)
        return TESSERA_OK
    }

    func setImage(_ port: Int, _ image: tessera_buffer, layout code: Int32, depth: Int32) -> Int32 {
        guard declared.indices.contains(port), declared[port].type == .image else {
            return fail("set_image for output \(port), which is not an image output")
        }
        let name = declared[port].name
        guard let layout = PixelLayout(pluginCode: code) else {
            return fail("output '\(name)': layout \(code) is not one of TESSERA_LAYOUT_*")
        }
        let region = image.region
        guard region.x == 0, region.y == 0, region.width > 0, region.height > 0, region.width <= 1 << 30,
            region.height <= 1 << 30, region.width * region.height <= Self.maxPixels,
            Int(image.channels) == layout.channels, let samples = image.samples
        else {
            return fail(
                "output '\(name)': an image of \(region.width)x\(region.height) at (\(region.x), \(region.y)) with "
                    + "\(image.channels) channels for layout \(code), which cannot be taken")
        }
        let count = Int(region.width * region.height) * layout.channels
        let buffer = PixelBuffer(
            region: Rect(region), channels: layout.channels,
            samples: Array(UnsafeBufferPointer(start: samples, count: count)))
        given[port] = .image(Image(buffer: buffer, layout: layout, depth: SampleDepth(pluginBits: depth)))
        return TESSERA_OK
    }

    /// An image output as a kernel of `pointer`, an instance the host owns from now on.
    func setKernel(_ port: Int, _ pointer: OpaquePointer?, _ info: UnsafePointer<tessera_instance_info>?) -> Int32 {
        guard let pointer else { return fail("set_kernel with no instance") }
        let instance = PluginInstance(plugin: plugin, op: op, pointer: pointer)
        guard declared.indices.contains(port), declared[port].type == .image else {
            return fail("set_kernel for output \(port), which is not an image output")
        }
        guard let info else { return fail("set_kernel with no instance info") }
        do {
            given[port] = .image(
                try PluginNode.kernelImage(instance, info.pointee, images: images, plugin: plugin, op: op))
            return TESSERA_OK
        } catch let error as ImageError {
            return fail("output '\(declared[port].name)': \(error.message)")
        } catch {
            return fail("output '\(declared[port].name)': \(error)")
        }
    }

    /// Every declared output by name, values parsed and checked against their declared kind.
    func values() throws -> [String: NodeValue] {
        if let mistake { throw NodeConfigurationError(mistake) }
        var result: [String: NodeValue] = [:]
        for (port, output) in declared.enumerated() {
            if let image = given[port] {
                result[output.name] = image
            } else if let text = texts[port] {
                do {
                    result[output.name] = try ValueJSON.parse(text, as: output.type)
                } catch {
                    throw NodeConfigurationError(
                        "output '\(output.name)' is not valid \(output.type.rawValue): \(error)")
                }
            } else {
                throw NodeConfigurationError("the plugin gave no output '\(output.name)'")
            }
        }
        return result
    }
}
