import TesseraCore

/// The nodes that ship with Tessera. A host registers them in its catalog; the engine itself knows none.
package enum BuiltinNodes {
    package static let all: [any Node.Type] = [
        Load.self,
        InputImage.self,
        Save.self,
        ColorMatrix.self,
        Contrast.self,
        Grayscale.self,
        ColorSpace.self,
        Normalize.self,
        BlendWithMask.self,
        Composite.self,
        Crop.self,
        Resize.self,
        Thumbnail.self,
        Constant.self,
        GaussianBlur.self,
        Saliency.self,
        DetectContours.self,
        DrawContours.self,
        DrawBoxes.self,
        Require.self,
        Exposure.self,
        ColorControls.self,
        Vibrance.self,
        Levels.self,
        ToneCurve.self,
        Rotate.self,
        Flip.self,
        Pad.self,
        UnsharpMask.self,
        MaskedBlur.self,
        LinearGradient.self,
        RadialGradient.self,
    ]
}
