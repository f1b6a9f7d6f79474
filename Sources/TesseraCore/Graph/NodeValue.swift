/// The kinds of value that flow along a graph's edges. Ports are typed with these, and connecting
/// ports of different types is a validation error.
public enum PortType: String, Sendable, CaseIterable {
    case image
    case contours
    case boxes
    case number

    /// The type with an article, for messages: "an image", "boxes".
    public var phrase: String {
        switch self {
        case .image: "an image"
        case .contours: "contours"
        case .boxes: "boxes"
        case .number: "a number"
        }
    }
}

/// A value produced by a node's output port.
public enum NodeValue: Sendable {
    case image(Image)
    case contours(Contours)
    case boxes([Box])
    case number(Double)

    public var type: PortType {
        switch self {
        case .image: .image
        case .contours: .contours
        case .boxes: .boxes
        case .number: .number
        }
    }
}

/// A rectangle in pixel coordinates (origin top-left) with a confidence in 0...1, as Vision's salient
/// object observations carry.
public struct Box: Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var confidence: Double

    public init(x: Double, y: Double, width: Double, height: Double, confidence: Double = 1) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.confidence = confidence
    }

    /// The smallest whole-pixel rectangle that covers the box; empty if the box is not finite.
    public var enclosingRect: Rect {
        let limit = Double(1 << 40)  // far beyond any image, and safe to convert to Int
        let edges = [x, y, x + width, y + height]
        guard edges.allSatisfy({ $0.isFinite && abs($0) < limit }) else { return .empty }
        let minX = Int(x.rounded(.down))
        let minY = Int(y.rounded(.down))
        let maxX = Int((x + width).rounded(.up))
        let maxY = Int((y + height).rounded(.up))
        return Rect(x: minX, y: minY, width: max(0, maxX - minX), height: max(0, maxY - minY))
    }
}

/// A tree of closed polylines, as OpenCV's `findContours` hierarchy and Vision's contour observations.
public struct Contours: Sendable {
    /// One closed polyline: points in pixel coordinates of the traced grid.
    public struct Contour: Sendable, Equatable {
        public var points: [SIMD2<Double>]
        /// Index of the enclosing contour, or -1.
        public var parent: Int
        public var children: [Int]
        /// True for the border of a hole, false for an outer border.
        public var isHole: Bool

        public init(points: [SIMD2<Double>], parent: Int = -1, children: [Int] = [], isHole: Bool = false) {
            self.points = points
            self.parent = parent
            self.children = children
            self.isHole = isHole
        }
    }

    public var contours: [Contour]
    /// Size of the grid the contours were traced on.
    public var width: Int
    public var height: Int

    public init(contours: [Contour], width: Int, height: Int) {
        self.contours = contours
        self.width = width
        self.height = height
    }
}
