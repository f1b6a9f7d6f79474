@_exported import TesseraCore
@_exported import TesseraIO

/// The version of Tessera.
public enum TesseraVersion {
    public static let string = "0.1.0"
}
