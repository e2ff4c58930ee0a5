import CMarkArena
import Escaping

/// The control-character rule (``ControlCharacters/display(_:)``) for whole finished
/// pages, with the scan made 32 bytes at a time in C (`dossier_has_display_control`).
/// The word scan of ``ControlCharacters/displayUTF8(_:)`` it replaces for pages was about
/// five instructions a byte, 2 % of a pages build's instructions; its plain twin, the byte
/// rule ``ControlCharacters`` keeps, is compared with it in `PageControlsTests`.
public enum PageControls {
    /// `page` with every control character display text may not keep replaced by
    /// U+FFFD; `page` itself (no copy) when it holds none, as nearly every page.
    public static func displayUTF8(_ page: String) -> String {
        let found = page.utf8.withContiguousStorageIfAvailable(hasDisplayControl)
        guard let found else { return ControlCharacters.displayUTF8(page) }
        return found ? ControlCharacters.display(page) : page
    }

    /// Whether UTF-8 `bytes` hold a control character ``ControlCharacters/display(_:)``
    /// would replace (the vector scan).
    public static func hasDisplayControl(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        return dossier_has_display_control(base, bytes.count) != 0
    }
}
