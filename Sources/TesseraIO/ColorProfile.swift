import CLCMS2
import Foundation
import TesseraCore

/// An ICC profile, read by Little CMS 2: what an image's numbers mean as colors.
public final class ColorProfile: @unchecked Sendable {
    /// The profiles Tessera builds itself, named as graphs name them.
    public enum Named: String, Sendable, CaseIterable {
        /// IEC 61966-2-1 sRGB: the web's and most cameras' color space.
        case srgb
        /// Apple's Display P3: DCI-P3 primaries, a D65 white and sRGB's transfer curve.
        case displayP3
        /// sRGB's primaries with linear values: light adds up, as blurs and blends assume.
        case linearSRGB
    }

    /// The profile's bytes, as embedded in a file.
    public let bytes: [UInt8]
    // Little CMS profiles are read-only once opened: lcms2 reads them from any thread.
    fileprivate let handle: cmsHPROFILE

    /// Opens the profile in `bytes` (an embedded profile, or an .icc file's content).
    ///
    /// - Throws: ``ImageError`` when Little CMS does not read it as a profile.
    public init(bytes: [UInt8]) throws {
        ColorProfile.silenceLittleCMS
        guard let handle = bytes.withUnsafeBytes({ cmsOpenProfileFromMem($0.baseAddress, UInt32($0.count)) }) else {
            throw ImageError(message: "not a valid ICC profile (\(bytes.count) bytes)")
        }
        self.bytes = bytes
        self.handle = handle
    }

    /// Reads the ICC profile file at `path`.
    public convenience init(path: String) throws {
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
    public static func named(_ name: Named) -> ColorProfile {
        made[Named.allCases.firstIndex(of: name) ?? 0]
    }

    public static var sRGB: ColorProfile { named(.srgb) }

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
        do {
            return try ColorProfile(bytes: bytes)
        } catch {
            // Only an allocation failure in Little CMS could bring this here.
            preconditionFailure("Little CMS did not read back the \(description) profile it made")
        }
    }

    /// The profile's description, as viewers and `tessera info` show it ("Display P3").
    public var description: String {
        let size = cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", nil, 0)
        guard size > 1 else { return "(no description)" }
        var text = [CChar](repeating: 0, count: Int(size))
        cmsGetProfileInfoASCII(handle, cmsInfoDescription, "en", "US", &text, size)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .trimmingCharacters(in: .whitespaces)
    }

    /// Whether the profile describes RGB values (not gray, CMYK or Lab).
    public var isRGB: Bool { cmsGetColorSpace(handle) == cmsSigRgbData }
    /// Whether the profile describes gray values.
    public var isGray: Bool { cmsGetColorSpace(handle) == cmsSigGrayData }

    /// Little CMS prints nothing: its errors come back as failed calls, which Tessera reports.
    private static let silenceLittleCMS: Void = cmsSetLogErrorHandler(nil)
}

/// A conversion of pixel values from one profile to another, for 1-channel (gray) or 4-channel (RGBA)
/// rows of Float samples in 0...1; values outside stay outside (the transform is unbounded for
/// matrix-shaper profiles). Alpha is copied. Safe to apply from several threads at once.
public final class ColorTransform: @unchecked Sendable {
    /// How colors one profile has and the other lacks are mapped (ICC rendering intents).
    public enum Intent: String, Sendable, CaseIterable {
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
    public let inputChannels: Int
    // The profiles stay open for as long as the transform uses them.
    private let profiles: (ColorProfile, ColorProfile)

    /// - Throws: ``ImageError`` when the profiles are neither RGB nor gray, or Little CMS cannot link them.
    public init(from source: ColorProfile, to target: ColorProfile, intent: Intent = .relative) throws {
        guard source.isRGB || source.isGray else {
            throw ImageError(message: "the profile \"\(source.description)\" is neither RGB nor gray")
        }
        guard target.isRGB else {
            throw ImageError(message: "the profile \"\(target.description)\" is not an RGB profile")
        }
        inputChannels = source.isGray ? 1 : 4
        let flags = tsr_lcms_no_cache | (source.isGray ? 0 : tsr_lcms_copy_alpha)
        guard
            let handle = cmsCreateTransform(
                source.handle, source.isGray ? tsr_lcms_gray_float : tsr_lcms_rgba_float, target.handle,
                tsr_lcms_rgba_float, intent.code, flags)
        else {
            throw ImageError(
                message: "Little CMS cannot convert from \"\(source.description)\" to \"\(target.description)\"")
        }
        self.handle = handle
        profiles = (source, target)
    }

    deinit { cmsDeleteTransform(handle) }

    /// Converts `count` pixels of ``inputChannels`` samples from `input` into RGBA pixels at `output`.
    /// With a gray source, alpha is not touched: the caller sets it.
    public func apply(_ input: UnsafePointer<Float>, to output: UnsafeMutablePointer<Float>, count: Int) {
        cmsDoTransform(handle, input, output, UInt32(count))
    }
}
