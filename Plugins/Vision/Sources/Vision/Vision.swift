import TesseraPluginSDK

/// The plugin's entry point: faces, people, hands, body poses, text, barcodes and documents, as Apple's Vision
/// gives them, on MediaPipe's and PaddleOCR's models, zxing-cpp and classical geometry.
@_cdecl("tessera_plugin_entry")
public func entry() -> UnsafeRawPointer {
    TesseraPluginSDK.export([
        DetectFaces.self, FaceLandmarks.self, SegmentPeople.self, DrawFaces.self, FrameFace.self, DetectHandPose.self,
        DrawHands.self, DetectText.self, DetectBarcodes.self, DetectBodyPose.self, DrawBodies.self,
        DetectRectangles.self,
        DetectDocument.self, PerspectiveCorrect.self,
    ])
}
