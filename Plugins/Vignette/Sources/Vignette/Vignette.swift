import TesseraPluginSDK

/// Darkens an image toward its corners: a point node, written exactly as a built-in is.
struct Vignette: Node {
    static let info = NodeInfo(
        op: "vignette",
        summary: "Darkens the color toward the corners, from a radius out (a Swift plugin); alpha is kept.",
        access: .point, outputs: [.init("output", .image, doc: "The darkened image.")],
        example: """
            photo: { op: load, path: photo.png }
            dark: { op: vignette, input: photo, strength: 0.8 }
            out: { op: save, input: dark, path: vignette.png }
            """)

    enum Falloff: String, ParameterChoice { case linear, smooth }

    @Input(doc: "The image to darken.") var input: Image
    @Parameter(doc: "How much the corners darken: 0 leaves them, 1 makes them black.", range: 0...1)
    var strength = 0.5
    @Parameter(
        doc: "Where the darkening starts, as a fraction of the distance from the center to a corner.",
        range: 0...0.99, suggested: 0.3...0.9)
    var radius = 0.5
    @Parameter(doc: "How the darkening grows from the radius to the corners.") var falloff = Falloff.smooth

    func run() throws -> NodeOutputs {
        let kernel = VignetteKernel(
            width: input.width, height: input.height, strength: Float(strength), radius: Float(radius),
            smooth: falloff == .smooth)
        return NodeOutputs(
            .image(
                Image(
                    width: input.width, height: input.height, layout: input.layout, depth: input.depth,
                    kernel: kernel, inputs: [KernelInput(input)])))
    }
}

/// Each pixel's color times 1 - strength * f(t), where t runs from 0 at the radius to 1 at the corners
/// (the distance measured from the image center to the pixel center).
struct VignetteKernel: ImageKernel {
    let width: Int
    let height: Int
    let strength: Float
    let radius: Float
    let smooth: Bool

    func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) throws {
        let input = inputs[0]
        let channels = output.channels
        let colors = channels == 4 ? 3 : 1
        let centerX = Float(width) / 2
        let centerY = Float(height) / 2
        let corner = (centerX * centerX + centerY * centerY).squareRoot()
        let region = output.region
        for y in region.minY..<region.maxY {
            let dy = Float(y) + 0.5 - centerY
            for x in region.minX..<region.maxX {
                let dx = Float(x) + 0.5 - centerX
                let distance = (dx * dx + dy * dy).squareRoot() / corner
                var t = min(max((distance - radius) / (1 - radius), 0), 1)
                if smooth { t = t * t * (3 - 2 * t) }
                let factor = 1 - strength * t
                let target = output.index(x: x, y: y)
                let source = input.index(x: x, y: y)
                for c in 0..<colors { output.samples[target + c] = input.samples[source + c] * factor }
                if channels == 4 { output.samples[target + 3] = input.samples[source + 3] }
            }
        }
    }
}

/// The plugin's entry point: the one line that exports its nodes.
@_cdecl("tessera_plugin_entry")
public func entry() -> UnsafeRawPointer { TesseraPluginSDK.export([Vignette.self, BrightestWindow.self]) }
