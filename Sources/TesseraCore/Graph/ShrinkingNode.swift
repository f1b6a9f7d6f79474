/// A node that reads its image input only to make it smaller, and can read a smaller decode of it
/// instead (``Image/smallerDecode``), mapped onto the full image's geometry: `resize`.
///
/// When every node reading a file's pixels is one of these, shrinking it enough, the engine decodes the
/// file smaller (a JPEG at 1/2, 1/4 or 1/8 by DCT scaling) and the node does the rest of the shrink; its
/// output keeps the size it has without (shrink-on-load).
package protocol ShrinkingNode: ConfiguredNode {
    /// How many times smaller than its image input its output is, on the side it shrinks least (a
    /// 6400x4270 photo to 640x427: 10); nil when it needs the input's own pixels (nearest sampling
    /// picks them) or its size is not known. The engine asks it with its inputs connected to images of
    /// the right sizes whose pixels cannot be read.
    var inputShrink: Double? { get }
}
