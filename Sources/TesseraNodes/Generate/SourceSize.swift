import TesseraCore

/// The size of an image a generating node makes (`constant`, the gradients): a `width` and `height`
/// given together, or another image's through its `like` input.
enum SourceSize {
    /// `validate()` of the size parameters: both or neither.
    static func validate(width: Int?, height: Int?) throws(NodeProblem) {
        if (width == nil) != (height == nil) {
            throw NodeProblem(parameter: width == nil ? "height" : "width", "give both width and height, or neither")
        }
    }

    /// The size the parameters alone fix, if they give one.
    static func known(width: Int?, height: Int?) -> (width: Int, height: Int)? {
        guard let width, let height else { return nil }
        return (width, height)
    }

    /// `prepare` of a generating node: the size the parameters fix, or `like`'s shape where it is known.
    static func preparation(width: Int?, height: Int?, like: ImageShape?) -> Preparation {
        guard let size = known(width: width, height: height) ?? like.map({ ($0.width, $0.height) }) else {
            return Preparation()
        }
        return Preparation(outputSizes: ["output": .init(width: size.width, height: size.height)])
    }

    /// The output's size: `width` and `height`, or `like`'s; ``validate(width:height:)`` has held.
    static func resolve(like: Image?, width: Int?, height: Int?) throws -> (width: Int, height: Int) {
        if let size = known(width: width, height: height) {
            guard like == nil else { throw NodeProblem(parameter: "width", "give a size or `like`, not both") }
            return size
        }
        guard let like else {
            throw NodeProblem(parameter: "width", "give a size (width and height) or connect `like`")
        }
        return (like.width, like.height)
    }
}
