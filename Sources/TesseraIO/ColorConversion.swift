import TesseraCore

extension Image {
    /// This image with its values converted from its profile (sRGB when it has none, or one that does
    /// not fit its pixels) to `target`, carrying `target` as its profile; the image itself when its
    /// profile is `target` already. The conversion is a point kernel: it runs tile by tile.
    package func convertingColors(to target: ColorProfile, intent: ColorTransform.Intent = .relative) throws -> Image {
        var metadata = self.metadata
        let embedded = metadata.profileFits(layout) ? metadata.iccProfile : nil
        if embedded == target.bytes { return self }
        metadata.iccProfile = target.bytes
        let source = try embedded.map(ColorProfile.init(bytes:)) ?? ColorProfile.sRGB
        if source.bytes == target.bytes { return withMetadata(metadata) }
        // Float images may hold values outside 0...1 (a float TIFF, HDR): only they pay for the float pipeline.
        let transform = try ColorTransform(from: source, to: target, intent: intent, unbounded: depth == .float32)
        let layout: PixelLayout = layout.hasAlpha ? .rgba : .rgb
        return Image(
            width: width, height: height, layout: layout, depth: depth,
            kernel: ColorTransformKernel(transform: transform), inputs: [KernelInput(self)]
        ).withMetadata(metadata)
    }
}

/// Converts each row of pixels with a ``ColorTransform``.
struct ColorTransformKernel: ImageKernel {
    let transform: ColorTransform

    func render(into output: inout PixelBuffer, from inputs: [PixelBuffer]) {
        let input = inputs[0]
        let region = output.region
        let (width, channels) = (region.width, input.channels)
        // A gray profile reads one sample a pixel: the red lane of a gray-with-alpha buffer.
        var gray = transform.inputChannels == 1 && channels == 4 ? [Float].scratch(count: width) : []
        input.samples.withUnsafeBufferPointer { source in
            output.samples.withUnsafeMutableBufferPointer { target in
                guard let source = source.baseAddress, let target = target.baseAddress else { return }
                for row in 0..<region.height {
                    let from =
                        source
                        + ((region.y + row - input.region.y) * input.region.width + region.x - input.region.x)
                        * channels
                    let to = target + row * width * 4
                    switch (transform.inputChannels, channels) {
                    case (4, 4):
                        transform.apply(from, to: to, count: width)
                    case (4, _):
                        // Gray values taken as sRGB gray: spread to RGBA, converted in place.
                        for x in 0..<width {
                            let v = from[x]
                            (to + 4 * x).update(repeating: v, count: 3)
                            to[4 * x + 3] = 1
                        }
                        transform.apply(to, to: to, count: width)
                    case (_, 4):
                        for x in 0..<width { gray[x] = from[4 * x] }
                        transform.apply(gray, to: to, count: width)
                        for x in 0..<width { to[4 * x + 3] = from[4 * x + 3] }
                    default:
                        transform.apply(from, to: to, count: width)
                        for x in 0..<width { to[4 * x + 3] = 1 }
                    }
                }
            }
        }
        gray.recycleScratch()
    }
}
