import TesseraCore

/// One rule a node broke, found by ``NodeVerifier``: which check, on which node, output, parameters,
/// region and pixel, and what was expected there against what came out.
///
/// Its ``description`` is the message to show:
///
///     vignette.output (falloff: linear), 61x47 rgba: tiles of 13x40 give other bits than the whole render:
///     pixel (12, 3) channel 0 in tile 13x40+0+0: expected 0.41176474, got 0.4117647
public struct VerificationFailure: Error, Sendable, CustomStringConvertible {
    /// The rule broken.
    public enum Check: String, Sendable, CaseIterable {
        /// The node type breaks the declaration rules: a default outside its parameter's range (or that
        /// its type refuses), a stored property that is no parameter or input, a parameter without a doc
        /// sentence. A plugin's catalog breaking them does not load (`PluginError`).
        case declaration
        /// The node threw when run with the verifier's parameters and inputs.
        case run
        /// Rendering the output tile by tile, in a random tiling and order, gave other bits than rendering
        /// it whole.
        case tiling
        /// The kernel read a pixel outside the input region it declares for the region it rendered (the
        /// verifier makes every pixel outside it NaN, and a NaN came out).
        case declaredRegion
        /// Rendering a region from exactly the input regions the kernel declares gave other bits than the
        /// whole render.
        case regionRender
        /// Rendering the output packed (8- or 16-bit file samples, from inputs in that format) tile by
        /// tile gave other bytes than rendering it whole as Float32 and rounding: a format the kernel
        /// computes in (its format table, a lookup table, a strip or move path) disagrees with its
        /// Float32 render.
        case format
        /// What the node said before any pixel (``ConfiguredNode/prepare(_:)``) is not what its run made:
        /// an output of another size, or an input it says it only shrinks read to make something larger.
        case prepare
        /// The kernel's region map is not the node's declared access pattern: a ``AccessPattern/point``
        /// node's kernel must read one input pixel for each output pixel (an input region of the output
        /// region's size: the same pixels, or moved, as composite's offset), an ``AccessPattern/area``
        /// node's a neighbourhood around each (a region holding the output region).
        case access
    }

    /// Where in an image a failure shows: one sample.
    public struct Sample: Sendable, Equatable, CustomStringConvertible {
        public var x: Int
        public var y: Int
        public var channel: Int

        public init(x: Int, y: Int, channel: Int) {
            self.x = x
            self.y = y
            self.channel = channel
        }

        public var description: String { "pixel (\(x), \(y)) channel \(channel)" }
    }

    public var check: Check
    /// The node's op name.
    public var op: String
    /// The output port whose image broke the rule; nil for a declaration's rules or a failed run.
    public var port: String?
    /// The parameters and inputs of the run, in words (``NodeVerification/subject``).
    public var subject: String
    /// The tile (``Check/tiling``) or region (``Check/declaredRegion``, ``Check/regionRender``) rendered.
    public var region: Rect?
    /// The first sample that differs, or that came out NaN.
    public var sample: Sample?
    /// The whole render's value of ``sample``.
    public var expected: Float?
    /// The value that came out instead.
    public var got: Float?
    /// What went wrong, in words, without the node and subject (which ``description`` adds).
    public var message: String

    public init(
        check: Check, op: String, port: String? = nil, subject: String,
        region: Rect? = nil, sample: Sample? = nil, expected: Float? = nil, got: Float? = nil, message: String
    ) {
        self.check = check
        self.op = op
        self.port = port
        self.subject = subject
        self.region = region
        self.sample = sample
        self.expected = expected
        self.got = got
        self.message = message
    }

    public var description: String {
        let name = [op, port].compactMap { $0 }.joined(separator: ".")
        var text = "\(name)\(subject.isEmpty ? "" : " (\(subject))"): \(message)"
        if let sample {
            text += ": \(sample)"
            if let region { text += " in \(check == .tiling || check == .format ? "tile" : "region") \(region)" }
            if let expected, let got {
                text +=
                    ": expected \(expected) (bits 0x\(String(expected.bitPattern, radix: 16))), got \(got)"
                    + " (bits 0x\(String(got.bitPattern, radix: 16)))"
            } else if let got {
                text += ": got \(got)"
            }
        }
        return text
    }
}

/// The verifier's findings for one run of one node: its outputs, and every rule it broke.
public struct NodeVerification: Sendable {
    /// The node's op name.
    public var op: String
    /// The parameters and inputs the node ran with, in words: `falloff: linear; input: 61x47 rgba`.
    public var subject: String
    /// The node's outputs by port name, for the node's own reference tests; empty when it did not run.
    public var outputs: [String: NodeValue]
    /// Every rule broken, in the order found; empty when the node passed.
    public var failures: [VerificationFailure]
    /// Why the verifier did not run this node (a sink writes files; a required path has no value to
    /// make up); nil when it ran.
    public var skipped: String?

    public init(
        op: String, subject: String, outputs: [String: NodeValue] = [:], failures: [VerificationFailure] = [],
        skipped: String? = nil
    ) {
        self.op = op
        self.subject = subject
        self.outputs = outputs
        self.failures = failures
        self.skipped = skipped
    }

    /// Whether the node broke no rule.
    public var passed: Bool { failures.isEmpty }
}

/// What `NodeVerifier.verify(_:parameters:inputs:)` and the other `verify` methods throw when a node
/// breaks a rule: every failure found, one per line in its ``description``.
public struct NodeVerificationError: Error, Sendable, CustomStringConvertible {
    public var failures: [VerificationFailure]

    public init(failures: [VerificationFailure]) { self.failures = failures }

    public var description: String {
        let count = failures.count == 1 ? "1 failure" : "\(failures.count) failures"
        return "the node verifier found \(count):\n" + failures.map { "- \($0)" }.joined(separator: "\n")
    }
}
