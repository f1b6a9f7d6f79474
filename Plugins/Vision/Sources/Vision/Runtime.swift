import COpenVINO
import Foundation
import Synchronization

/// A failure of the inference runtime or of a model: one line, said by the node that met it.
struct VisionError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A MediaPipe model compiled for the CPU by OpenVINO. Compiling takes 100 to 300 ms a model, so each model
/// file is compiled once per process (``Model/named(_:in:)``) and kept, and OpenVINO keeps what it compiled
/// in ``ModelCache`` between processes (loading that takes 30 to 70 ms). Every inference makes its own
/// request, so nodes on different workers may use one model at once.
final class Model: @unchecked Sendable {
    /// One model file's compiled model, made by the first node that asks for it. Each file has its own
    /// lock, so two nodes needing different models compile them at the same time.
    private final class Slot: Sendable {
        let model = Mutex<Model?>(nil)
    }

    /// The slots by file path, and OpenVINO's core: the plugin's only shared state. Compiled models are
    /// immutable, and OpenVINO's compiled model is safe to use from any thread.
    private static let slots = Mutex<[String: Slot]>([:])
    private static let core = Mutex<OpaquePointer?>(nil)

    private let handle: OpaquePointer
    let path: String
    /// The model's file name, for messages.
    var name: String { (path as NSString).lastPathComponent }

    private init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
    }

    deinit { ov_compiled_model_free(handle) }

    /// The model `file` in `folder`, compiled on first use.
    static func named(_ file: String, in folder: String) throws -> Model {
        let path = (folder as NSString).appendingPathComponent(file)
        let slot = slots.withLock { slots in
            if let slot = slots[path] { return slot }
            let slot = Slot()
            slots[path] = slot
            return slot
        }
        return try slot.model.withLock { model -> Model in
            if let model { return model }
            let made = try compile(path, file: file)
            model = made
            return made
        }
    }

    private static func compile(_ path: String, file: String) throws -> Model {
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw VisionError(
                "the model \(path) is missing (run make in Plugins/Vision, or set the models parameter or "
                    + "TESSERA_VISION_MODELS to the folder holding \(file))")
        }
        let core = try core.withLock { core -> OpaquePointer in
            if let core { return core }
            var made: OpaquePointer?
            try check(ov_core_create(&made), "starting OpenVINO")
            guard let made else { throw VisionError("starting OpenVINO gave no core") }
            core = made
            return made
        }
        // One thread: the scheduler already keeps every core busy. f32: OpenVINO's default on CPUs with
        // bf16 support is bf16, which moves boxes and keypoints by over 1 % of the face. The keys are the
        // values of ov_property_key_inference_num_threads, _hint_inference_precision and _cache_dir (C
        // globals Swift 6 will not read from any thread). Compiling from the file, not from a model read
        // first, lets OpenVINO find a cached compiled model by the file's hash without parsing it.
        var settings = [("INFERENCE_NUM_THREADS", "1"), ("INFERENCE_PRECISION_HINT", "f32")]
        if let cache = ModelCache.folder { settings.append(("CACHE_DIR", cache)) }
        let strings = settings.flatMap { [strdup($0.0), strdup($0.1)] }
        defer { strings.forEach { free($0) } }
        var properties = (0..<settings.count).map { index in
            ov_property_t(key: UnsafePointer(strings[2 * index]), value: UnsafeRawPointer(strings[2 * index + 1]))
        }
        var handle: OpaquePointer?
        let status = ov_core_compile_model_from_file_props(core, path, "CPU", properties.count, &properties, &handle)
        try check(status, "compiling the model \(path)")
        guard let handle else { throw VisionError("compiling the model \(path) gave nothing") }
        return Model(handle: handle, path: path)
    }

    /// Runs the model on one Float32 input of `shape` (NHWC for MediaPipe's models, NCHW for PaddleOCR's)
    /// and returns each output's values, by index.
    func infer(_ input: [Float], shape: [Int64]) throws -> [[Float]] {
        var request: OpaquePointer?
        try check(ov_compiled_model_create_infer_request(handle, &request), "running \(name)")
        defer { ov_infer_request_free(request) }
        var dimensions = shape
        var tensorShape = ov_shape_t()
        try check(ov_shape_create(Int64(dimensions.count), &dimensions, &tensorShape), "running \(name)")
        defer { ov_shape_free(&tensorShape) }
        var samples = input
        var outputs: [[Float]] = []
        try samples.withUnsafeMutableBytes { bytes in
            var tensor: OpaquePointer?
            try check(ov_tensor_create_from_host_ptr(F32, tensorShape, bytes.baseAddress, &tensor), "running \(name)")
            defer { ov_tensor_free(tensor) }
            try check(ov_infer_request_set_input_tensor_by_index(request, 0, tensor), "running \(name)")
            try check(ov_infer_request_infer(request), "running \(name)")
            var count = 0
            try check(ov_compiled_model_outputs_size(handle, &count), "running \(name)")
            for index in 0..<count {
                var output: OpaquePointer?
                try check(ov_infer_request_get_output_tensor_by_index(request, index, &output), "running \(name)")
                defer { ov_tensor_free(output) }
                var size = 0
                var type = DYNAMIC
                var data: UnsafeMutableRawPointer?
                try check(ov_tensor_get_size(output, &size), "running \(name)")
                try check(ov_tensor_get_element_type(output, &type), "running \(name)")
                try check(ov_tensor_data(output, &data), "running \(name)")
                guard type == F32, let data else { throw VisionError("\(name): output \(index) is not Float32") }
                outputs.append(Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: Float.self), count: size)))
            }
        }
        return outputs
    }
}

private func check(_ status: ov_status_e, _ what: String) throws {
    guard status != OK else { return }
    let detail = ov_get_last_err_msg().map { String(cString: $0) } ?? ""
    let firstLine = detail.split(separator: "\n").first.map(String.init) ?? ""
    let reason = ov_get_error_info(status).map { String(cString: $0) } ?? "error \(status.rawValue)"
    throw VisionError("\(what): \(reason)" + (firstLine.isEmpty ? "" : " (\(firstLine))"))
}

/// Where OpenVINO keeps the models it compiled, so the next process loads them instead of compiling
/// again: `TESSERA_VISION_CACHE` when set (empty turns the cache off), else `tessera/vision` in
/// `XDG_CACHE_HOME` or `~/.cache`. A compiled model is found by a hash of its file, OpenVINO's version and
/// the settings, and one that no longer loads (another CPU, a damaged file) is compiled again and replaced.
/// A folder that cannot be made means no cache, never a failure.
enum ModelCache {
    static let folder: String? = {
        let environment = ProcessInfo.processInfo.environment
        let folder: String
        if let chosen = environment["TESSERA_VISION_CACHE"] {
            guard !chosen.isEmpty else { return nil }
            folder = chosen
        } else if let base = environment["XDG_CACHE_HOME"], base.hasPrefix("/") {
            folder = base + "/tessera/vision"
        } else if let home = environment["HOME"], !home.isEmpty {
            folder = home + "/.cache/tessera/vision"
        } else {
            return nil
        }
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return access(folder, W_OK | X_OK) == 0 ? folder : nil
    }()
}

/// Where the models are: the `models` parameter when given, else `TESSERA_VISION_MODELS`, else the
/// `runtime/models` folder beside the plugin file (where `make` puts them).
enum ModelFolder {
    static func resolve(_ parameter: String?) -> String {
        if let parameter, !parameter.isEmpty { return parameter }
        if let folder = ProcessInfo.processInfo.environment["TESSERA_VISION_MODELS"], !folder.isEmpty { return folder }
        return besidePlugin
    }

    /// `runtime/models` next to the shared library this code is in: the file /proc/self/maps names for the
    /// address of this library's header. Read to its end through a file handle: `String(contentsOfFile:)`
    /// gets only the first 4 KB of a /proc file, which in a process with many mappings (a test run with
    /// three plugins) misses this library's line.
    static let besidePlugin: String = {
        let address = UInt(bitPattern: #dsohandle)
        let data = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data()
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let range = fields.first?.split(separator: "-").compactMap { UInt($0, radix: 16) } ?? []
            guard fields.count >= 6, range.count == 2, (range[0]..<range[1]).contains(address) else { continue }
            let library = URL(fileURLWithPath: fields[5...].joined(separator: " ")).resolvingSymlinksInPath()
            return library.deletingLastPathComponent().appendingPathComponent("runtime/models").path
        }
        return "runtime/models"
    }()
}
