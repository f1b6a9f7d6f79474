import TesseraCatalog
import CTesseraPlugin
import TesseraCore

// The conversions between Tessera's types and the C types of the plugin ABI, for the host and the SDK.

extension Rect {
    package init(_ rect: tessera_rect) {
        self.init(x: Int(rect.x), y: Int(rect.y), width: Int(rect.width), height: Int(rect.height))
    }

    package var pluginRect: tessera_rect {
        tessera_rect(x: Int64(x), y: Int64(y), width: Int64(width), height: Int64(height))
    }
}

extension Image {
    package var pluginInfo: tessera_image_info {
        tessera_image_info(
            width: Int64(width), height: Int64(height), layout: layout.pluginCode, depth: Int32(depth.bits))
    }
}

extension SampleDepth {
    /// The depth of `bits` bits: 16 and 32 as said, anything else 8.
    package init(pluginBits bits: Int32) {
        self = bits == 16 ? .uint16 : bits == 32 ? .float32 : .uint8
    }
}

extension PixelLayout {
    package var pluginCode: Int32 {
        switch self {
        case .gray: TESSERA_LAYOUT_GRAY
        case .grayAlpha: TESSERA_LAYOUT_GRAY_ALPHA
        case .rgb: TESSERA_LAYOUT_RGB
        case .rgba: TESSERA_LAYOUT_RGBA
        }
    }

    package init?(pluginCode: Int32) {
        guard let layout = Self.allCases.first(where: { $0.pluginCode == pluginCode }) else { return nil }
        self = layout
    }
}

extension EdgeMode {
    package var pluginCode: Int32 { self == .transparent ? TESSERA_EDGE_TRANSPARENT : TESSERA_EDGE_CLAMP }

    /// The mode a plugin's code names; nil for a code the ABI does not define.
    package init?(pluginCode: Int32) {
        switch pluginCode {
        case TESSERA_EDGE_CLAMP: self = .clamp
        case TESSERA_EDGE_TRANSPARENT: self = .transparent
        default: return nil
        }
    }
}
