import TesseraPluginSDK

/// The plugin's entry point: faces, people, hands, body poses, text and barcodes, as Apple's Vision gives them, on
/// MediaPipe's and PaddleOCR's models and zxing-cpp.
@_cdecl("tessera_plugin_entry")
public func entry() -> UnsafeRawPointer {
    TesseraPluginSDK.export([
        DetectFaces.self, FaceLandmarks.self, SegmentPeople.self, DrawFaces.self, FrameFace.self, DetectHandPose.self,
        DrawHands.self, DetectText.self, DetectBarcodes.self, DetectBodyPose.self, DrawBodies.self,
    ])
}
