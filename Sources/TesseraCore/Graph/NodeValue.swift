/// The kinds of value that flow along a graph's edges. Ports are typed with these, and connecting
/// ports of different types is a validation error.
public enum PortType: String, Sendable, CaseIterable {
    case image
    case contours
    case boxes
    case number
    case faces
    case text
    case hands
    case barcodes
    case bodies
    case rectangles

    /// The type with an article, for messages: "an image", "boxes".
    package var phrase: String {
        switch self {
        case .image: "an image"
        case .contours: "contours"
        case .boxes: "boxes"
        case .number: "a number"
        case .faces: "faces"
        case .text: "text"
        case .hands: "hands"
        case .barcodes: "barcodes"
        case .bodies: "bodies"
        case .rectangles: "rectangles"
        }
    }
}

/// A value produced by a node's output port.
public enum NodeValue: Sendable {
    case image(Image)
    case contours(Contours)
    case boxes([Box])
    case number(Double)
    case faces([Face])
    case text([TextLine])
    case hands([Hand])
    case barcodes([Barcode])
    case bodies([Body])
    case rectangles([Quadrilateral])

    public var type: PortType {
        switch self {
        case .image: .image
        case .contours: .contours
        case .boxes: .boxes
        case .number: .number
        case .faces: .faces
        case .text: .text
        case .hands: .hands
        case .barcodes: .barcodes
        case .bodies: .bodies
        case .rectangles: .rectangles
        }
    }

    /// The value as a port of `type` takes it: itself, or faces, text, hands, barcodes, bodies or rectangles as
    /// their boxes for a boxes port; nil when the port does not take it.
    package func converted(to type: PortType) -> NodeValue? {
        if self.type == type { return self }
        if type == .boxes, let boxes = [Box].from(self) { return .boxes(boxes) }
        return nil
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

    /// The box around points given by their coordinates (a text line's quad, a hand's joints); at the
    /// origin and empty when there are none.
    package init(around xs: [Double], _ ys: [Double], confidence: Double) {
        let (x, y) = (xs.min() ?? 0, ys.min() ?? 0)
        self.init(x: x, y: y, width: (xs.max() ?? 0) - x, height: (ys.max() ?? 0) - y, confidence: confidence)
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
///
/// Points are pixel coordinates of the grid the contours were traced on (``width`` x ``height``, origin
/// top-left): a point `(x, y)` is the pixel in column `x`, row `y`. That grid may be a downscaled copy of
/// an image of ``imageWidth`` x ``imageHeight``; ``imagePoint(_:)`` maps a point onto that image.
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

        /// The smallest pixel rectangle holding every point, as OpenCV's `boundingRect`: a single point
        /// has a 1x1 box. Points are whole pixels, so the box is `[minX, minY, maxX - minX + 1, maxY - minY + 1]`
        /// (fractional points are rounded outward).
        public var boundingBox: Rect {
            guard let first = points.first else { return .empty }
            var low = first
            var high = first
            for point in points {
                low = pointwiseMin(low, point)
                high = pointwiseMax(high, point)
            }
            let limit = Double(1 << 40)
            guard low.x.isFinite, low.y.isFinite, high.x.isFinite, high.y.isFinite,
                abs(low.x) < limit, abs(low.y) < limit, abs(high.x) < limit, abs(high.y) < limit
            else { return .empty }
            let x0 = Int(low.x.rounded(.down))
            let y0 = Int(low.y.rounded(.down))
            return Rect(
                x: x0, y: y0, width: Int(high.x.rounded(.up)) - x0 + 1, height: Int(high.y.rounded(.up)) - y0 + 1)
        }

        /// The closed polyline's length, last point back to the first included, in pixels of the traced
        /// grid: OpenCV's `arcLength(contour, closed: true)`. A single point has length 0; a one-pixel-wide
        /// line of `n` pixels, traced there and back, about `2 (n - 1)`.
        public var length: Double {
            guard var previous = points.last, points.count > 1 else { return 0 }
            var total = 0.0
            for point in points {
                let step = point - previous
                total += (step * step).sum().squareRoot()
                previous = point
            }
            return total
        }

        /// The area the closed polyline encloses (shoelace formula, always positive), in square pixels of
        /// the traced grid: OpenCV's `contourArea(contour)`. The polyline runs through pixel centers, so a
        /// filled 3x3 square encloses 4, and a line or a single pixel 0.
        public var area: Double {
            guard var previous = points.last else { return 0 }
            var twice = 0.0
            for point in points {
                twice += previous.x * point.y - previous.y * point.x
                previous = point
            }
            return abs(twice) / 2
        }
    }

    public var contours: [Contour]
    /// Size of the grid the contours were traced on.
    public var width: Int
    public var height: Int
    /// Size of the image the grid was made from (the same as the grid when it was not downscaled).
    public var imageWidth: Int
    public var imageHeight: Int

    public init(contours: [Contour], width: Int, height: Int, imageWidth: Int? = nil, imageHeight: Int? = nil) {
        self.contours = contours
        self.width = width
        self.height = height
        self.imageWidth = imageWidth ?? width
        self.imageHeight = imageHeight ?? height
    }

    /// How many contours enclose contour `index` (0 for one with no parent). Parents must come before
    /// their children or form no cycle; a cycle stops the count at the number of contours.
    public func depth(of index: Int) -> Int {
        var depth = 0
        var current = contours[index].parent
        while current >= 0, current < contours.count, depth < contours.count {
            depth += 1
            current = contours[current].parent
        }
        return depth
    }

    /// A traced point in the image's pixel coordinates: the traced pixel's center, scaled to the image
    /// (`(x + 0.5) * imageWidth / width`), so contours of a downscaled trace land on the full image.
    public func imagePoint(_ point: SIMD2<Double>) -> SIMD2<Double> {
        let scale = SIMD2(
            Double(imageWidth) / Double(Swift.max(width, 1)), Double(imageHeight) / Double(Swift.max(height, 1)))
        return (point + 0.5) * scale
    }
}

extension [PortType] {
    /// The types' phrases as a list for messages: "boxes or faces", "boxes, faces, text or hands".
    package var phrase: String { listed(map(\.phrase)) }
}

/// Words as a list of alternatives: "a", "a or b", "a, b or c".
func listed(_ words: [String]) -> String {
    guard words.count > 2 else { return words.joined(separator: " or ") }
    return words.dropLast().joined(separator: ", ") + " or " + words[words.count - 1]
}
