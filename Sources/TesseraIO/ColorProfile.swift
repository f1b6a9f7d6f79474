import CLCMS2
import Foundation
import TesseraCore

/// An ICC profile, read by Little CMS 2: what an image's numbers mean as colors.
package final class ColorProfile: @unchecked Sendable {
    /// The profiles Tessera builds itself, named as graphs name them.
    package enum Named: String, Sendable, CaseIterable {
        /// IEC 61966-2-1 sRGB: the web's and most cameras' color space.
        case srgb
        /// Apple's Display P3: DCI-P3 primaries, a D65 white and sRGB's transfer curve.
        case displayP3
        /// sRGB's primaries with linear values: light adds up, as blurs and blends assume.
        case linearSRGB
    }

    /// The profile's bytes, as embedded in a file.
    package let bytes: [UInt8]
    // Little CMS profiles are read-only once opened: lcms2 reads them from any thread.
    fileprivate let handle: cmsHPROFILE

    /// Opens the profile in `bytes` (an embedded profile, or an .icc file's content).
    ///
    /// - Throws: ``ImageError`` when Little CMS does not read it as a profile.
    package init(bytes: [UInt8]) throws {
        ColorProfile.silenceLittleCMS
        guard let handle = bytes.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }) else {
            throw ImageError(message: "not a valid ICC profile (\(bytes.count) bytes)")
        }
        self.bytes = bytes
        self.handle = handle
    }

    /// Reads the ICC profile file at `path`.
    package convenience init(path: String) throws {
        if let problem = FileSystem.specialFileProblem(path) { throw ImageError(path: path, message: problem) }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImageError(path: path, message: FileSystem.describeOpenFailure(path))
        }
        do {
            try self.init(bytes: [UInt8](data))
        } catch var error as ImageError {
            error.path = path
            throw error
        }
    }

    deinit { cmsCloseProfile(handle) }

    private static let made = Named.allCases.map(build)

    /// The built-in profile `name`.
    package static func named(_ name: Named) -> ColorProfile {
        made[Named.allCases.firstIndex(of: name) ?? 0]
    }

    package static var sRGB: ColorProfile { named(.srgb) }

    /// A matrix-shaper profile from the primaries and white point (CIE xy) and a transfer curve, saved
    /// to bytes and opened again, so that built-in profiles are embedded like any other.
    private static func build(_ name: Named) -> ColorProfile {
        silenceLittleCMS
        let d65 = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        let (red, green, blue): ((Double, Double), (Double, Double), (Double, Double)) =
            switch name {
            case .srgb, .linearSRGB: ((0.64, 0.33), (0.30, 0.60), (0.15, 0.06))
            case .displayP3: ((0.680, 0.320), (0.265, 0.690), (0.150, 0.060))
            }
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: red.0, y: red.1, Y: 1), Green: cmsCIExyY(x: green.0, y: green.1, Y: 1),
            Blue: cmsCIExyY(x: blue.0, y: blue.1, Y: 1))
        // sRGB's curve as ICC parametric type 4: Y = (aX + b)^g above d, cX below.
        var parameters: [Double] =
            name == .linearSRGB ? [1] : [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
        let curve = cmsBuildParametricToneCurve(nil, name == .linearSRGB ? 1 : 4, &parameters)
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        var white = d65
        let profile = cmsCreateRGBProfile(&white, &primaries, &curves)
        defer { cmsCloseProfile(profile) }
        let description: String =
            switch name {
            case .srgb: "sRGB"
            case .displayP3: "Display P3"
            case .linearSRGB: "Linear sRGB"
            }
        let text = cmsMLUalloc(nil, 1)
        cmsMLUsetASCII(text, "en", "US", description)
        cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(text))
        cmsMLUfree(text)
        var length: UInt32 = 0
        cmsSaveProfileToMem(profile, nil, &length)
        var bytes = [UInt8](repeating: 0, count: Int(length))
        cmsSaveProfileToMem(profile, &bytes, &length)
        // Little CMS dates a profile it makes with the current time (header bytes 24..<36), so every
        // output that embedded one differed from the last; the built-in profiles carry a fixed date
        // instead, and the same input gives the same bytes. (The profile ID, which would cover the date,
        // is left 0: not computed.)
        bytes.replaceSubrange(24..<36, with: Self.fixedDate)
        do {
            return try ColorProfile(bytes: bytes)
        } catch {
            // Only an allocation failure in Little CMS could bring this here.
            preconditionFailure("Little CMS did not read back the \(description) profile it made")
        }
    }

    /// 2024-01-01 00:00:00, as the ICC header's dateTimeNumber: six big-endian 16-bit numbers.
    private static let fixedDate: [UInt8] = [2024, 1, 1, 0, 0, 0].flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }

    /// The profile's description, as viewers and `tessera info` show it ("Display P3").
    package var description: String {
        let size = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", nil, 0)
        guard size > 1 else { return "(no description)" }
        var text = [CChar](repeating: 0, count: Int(size))
        cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &text, size)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
    }

    /// Whether the profile describes RGB values (not gray, CMYK or Lab).
    package var isRGB: Bool { cmsGetColorSpace(handle) == cmsSigRgbData }
    /// Whether the profile describes gray values.
    package var isGray: Bool { cmsGetColorSpace(handle) == cmsSigGrayData }

    /// Little CMS prints nothing: its errors come back as failed calls, which Tessera reports.
    private static let silenceLittleCMS: Void = cmsSetLogErrorHandler(nil)
}

/// A conversion of pixel values from one profile to another, for 1-channel (gray) or 4-channel (RGBA)
/// rows of Float samples. Alpha is copied. Safe to apply from several threads at once.
///
/// `unbounded` converts Float32 through Little CMS's floating-point pipeline, keeping values outside
/// 0...1 (matrix-shaper profiles are unbounded), at about 200 ns a pixel. Otherwise values are clamped
/// to 0...1 first: between two matrix-shaper RGB profiles (sRGB, Display P3, Adobe RGB, most camera and
/// screen profiles) with a relative or perceptual intent, Tessera applies the profiles' own curves and
/// colorants itself (``MatrixShaper``, about 15 ns a pixel); other pairs go through Little CMS's 16-bit
/// pipeline unoptimized (its optimized one resamples the curves too coarsely near black: 8/255 off).
package final class ColorTransform: @unchecked Sendable {
    /// How colors one profile has and the other lacks are mapped (ICC rendering intents).
    package enum Intent: String, Sendable, CaseIterable {
        case perceptual, relative, saturation, absolute

        var code: UInt32 {
            switch self {
            case .perceptual: UInt32(INTENT_PERCEPTUAL)
            case .relative: UInt32(INTENT_RELATIVE_COLORIMETRIC)
            case .saturation: UInt32(INTENT_SATURATION)
            case .absolute: UInt32(INTENT_ABSOLUTE_COLORIMETRIC)
            }
        }
    }

    private let handle: cmsHTRANSFORM
    /// Samples per pixel read: 1 for a gray source profile, 4 (RGBA) for an RGB one.
    package let inputChannels: Int
    /// Whether values outside 0...1 are kept (the floating-point pipeline).
    package let unbounded: Bool
    /// Tessera's own conversion between two matrix-shaper RGB profiles, when it applies.
    private let shaper: MatrixShaper?
    // The profiles stay open for as long as the transform uses them.
    private let profiles: (ColorProfile, ColorProfile)

    /// - Throws: ``ImageError`` when the profiles are neither RGB nor gray, or Little CMS cannot link them.
    package init(
        from source: ColorProfile, to target: ColorProfile, intent: Intent = .relative, unbounded: Bool = false
    )
        throws
    {
        guard source.isRGB || source.isGray else {
            throw ImageError(message: "the profile \"\(source.description)\" is neither RGB nor gray")
        }
        guard target.isRGB else {
            throw ImageError(message: "the profile \"\(target.description)\" is not an RGB profile")
        }
        inputChannels = source.isGray ? 1 : 4
        self.unbounded = unbounded
        shaper = unbounded || intent == .absolute ? nil : MatrixShaper(from: source, to: target)
        let flags =
            tsr_lcms_no_cache | (source.isGray ? 0 : tsr_lcms_copy_alpha) | (unbounded ? 0 : tsr_lcms_no_optimize)
        let (gray, rgba) = unbounded ? (tsr_lcms_gray_float, tsr_lcms_rgba_float) : (tsr_lcms_gray_16, tsr_lcms_rgba_16)
        guard
            let handle = cmsCreateTransform(
                source.handle, source.isGray ? gray : rgba, target.handle, rgba, intent.code, flags)
        else {
            throw ImageError(
                message: "Little CMS cannot convert from \"\(source.description)\" to \"\(target.description)\"")
        }
        self.handle = handle
        profiles = (source, target)
    }

    deinit { cmsDeleteTransform(handle) }

    /// Converts `count` pixels of ``inputChannels`` samples from `input` into RGBA pixels at `output`
    /// (which may be `input`). With a gray source, alpha is not touched: the caller sets it.
    package func apply(_ input: UnsafePointer<Float>, to output: UnsafeMutablePointer<Float>, count: Int) {
        guard !unbounded else {
            cmsDoTransform(handle, input, output, UInt32(count))
            return
        }
        if let shaper {
            shaper.apply(input, to: output, count: count)
            return
        }
        let inputSamples = count * inputChannels
        let samples = [UInt16](unsafeUninitializedCapacity: count * 4) { buffer, initialized in
            for i in 0..<inputSamples {
                let value = input[i]
                // NaN and negatives to 0, past 1 to 65535, nearest in between.
                buffer[i] = value > 0 ? UInt16(Swift.min(value, 1) * 65535 + 0.5) : 0
            }
            if let base = buffer.baseAddress { cmsDoTransform(handle, base, base, UInt32(count)) }
            initialized = count * 4
        }
        for i in 0..<(count * 4) where inputChannels == 4 || i % 4 != 3 {
            output[i] = Float(samples[i]) * (1 / 65535)
        }
    }
}

/// A conversion between two matrix-shaper RGB profiles done the way Little CMS links them, without its
/// per-pixel curve evaluation: each source curve sampled into a table (linear light), the two
/// profiles' colorant matrices joined into one 3x3 matrix (source RGB to PCS XYZ to target RGB), and
/// the target's inverse curve sampled against the square root of linear light, where a gamma curve is
/// steepest near black. Values are clamped to 0...1 on the way in and in linear light.
struct MatrixShaper: Sendable {
    static let size = 4096
    private let linearize: [[Float]]
    private let encode: [[Float]]
    private let matrix: [SIMD3<Float>]

    init?(from source: ColorProfile, to target: ColorProfile) {
        guard source.isRGB, target.isRGB, let from = Self.parts(source.handle), let to = Self.parts(target.handle),
            let inverse = Self.inverted(to.colorants)
        else { return nil }
        let n = Self.size
        linearize = from.curves.map { curve in
            (0...n).map { cmsEvalToneCurveFloat(curve, Float($0) / Float(n)) }
        }
        encode = to.curves.map { curve -> [Float] in
            guard let reversed = cmsReverseToneCurveEx(UInt32(n + 1), curve) else { return [] }
            defer { cmsFreeToneCurve(reversed) }
            return (0...n).map { i in
                let u = Float(i) / Float(n)
                return cmsEvalToneCurveFloat(reversed, u * u)
            }
        }
        guard encode.allSatisfy({ $0.count == n + 1 }) else { return nil }
        // Rows of inverse(target) x source.
        matrix = (0..<3).map { row in
            SIMD3(
                (0..<3).map { column in
                    Float((0..<3).reduce(0.0) { $0 + inverse[row][$1] * from.colorants[$1][column] })
                })
        }
    }

    /// The three curves and the colorant matrix (rows X, Y, Z; columns R, G, B) of a matrix-shaper profile.
    private static func parts(_ profile: cmsHPROFILE) -> (curves: [OpaquePointer], colorants: [[Double]])? {
        guard cmsIsMatrixShaper(profile) != 0 else { return nil }
        let curveTags = [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag]
        let colorantTags = [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag]
        let curves = curveTags.compactMap { cmsReadTag(profile, $0).map { OpaquePointer($0) } }
        let columns = colorantTags.compactMap {
            cmsReadTag(profile, $0)?.assumingMemoryBound(to: cmsCIEXYZ.self).pointee
        }
        guard curves.count == 3, columns.count == 3 else { return nil }
        let colorants = [columns.map(\.X), columns.map(\.Y), columns.map(\.Z)]
        return (curves, colorants)
    }

    private static func inverted(_ m: [[Double]]) -> [[Double]]? {
        let determinant =
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        guard abs(determinant) > 1e-12 else { return nil }
        func cofactor(_ r: Int, _ c: Int) -> Double {
            let rows = (0..<3).filter { $0 != r }
            let columns = (0..<3).filter { $0 != c }
            let minor =
                m[rows[0]][columns[0]] * m[rows[1]][columns[1]] - m[rows[0]][columns[1]] * m[rows[1]][columns[0]]
            return (r + c) % 2 == 0 ? minor : -minor
        }
        // The inverse is the transposed cofactor matrix over the determinant.
        return (0..<3).map { r in (0..<3).map { c in cofactor(c, r) / determinant } }
    }

    @inline(__always)
    private static func lookup(_ table: UnsafePointer<Float>, _ x: Float) -> Float {
        let position = Swift.min(Swift.max(x, 0), 1) * Float(size)
        let index = Swift.min(Int(position), size - 1)
        let fraction = position - Float(index)
        return table[index] + (table[index + 1] - table[index]) * fraction
    }

    /// Converts `count` RGBA pixels (alpha copied).
    func apply(_ input: UnsafePointer<Float>, to output: UnsafeMutablePointer<Float>, count: Int) {
        let (r, g, b) = (matrix[0], matrix[1], matrix[2])
        linearize[0].withUnsafeBufferPointer { l0 in
            linearize[1].withUnsafeBufferPointer { l1 in
                linearize[2].withUnsafeBufferPointer { l2 in
                    encode[0].withUnsafeBufferPointer { e0 in
                        encode[1].withUnsafeBufferPointer { e1 in
                            encode[2].withUnsafeBufferPointer { e2 in
                                guard let l0 = l0.baseAddress, let l1 = l1.baseAddress, let l2 = l2.baseAddress,
                                    let e0 = e0.baseAddress, let e1 = e1.baseAddress, let e2 = e2.baseAddress
                                else { return }
                                for i in 0..<count {
                                    let p = input + 4 * i
                                    let linear = SIMD3(
                                        Self.lookup(l0, p[0]), Self.lookup(l1, p[1]), Self.lookup(l2, p[2]))
                                    let alpha = p[3]
                                    let q = output + 4 * i
                                    q[0] = Self.lookup(e0, (r * linear).sum().squareRootClamped)
                                    q[1] = Self.lookup(e1, (g * linear).sum().squareRootClamped)
                                    q[2] = Self.lookup(e2, (b * linear).sum().squareRootClamped)
                                    q[3] = alpha
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

extension Float {
    /// The square root of this value clamped to 0...1.
    fileprivate var squareRootClamped: Float { Swift.min(Swift.max(self, 0), 1).squareRoot() }
}
