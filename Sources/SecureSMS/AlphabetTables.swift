#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif
import TextBasics

// MARK: - The tables as JSON

/// The GSM 03.38 tables and the safe alphabet as JSON (`dossier sms alphabet --json`),
/// for cross-checks against another GSM 03.38 codec.
public enum AlphabetTables {
    public static func json() -> String {
        func hex(_ s: Unicode.Scalar) -> String { cFormat("U+%04X", s.value) }
        func row(_ code: Int, _ scalar: Unicode.Scalar) -> String {
            "    {\"code\": \(code), \"scalar\": \"\(hex(scalar))\"}"
        }
        let basic = GSMAlphabet.basic.enumerated().map { row($0.offset, $0.element) }
        let ext = GSMAlphabet.extensionTable.sorted { $0.key < $1.key }.map { row(Int($0.key), $0.value) }
        let safe = SafeAlphabet.characters.map { "\"\(hex($0))\"" }
        return """
        {
          "basic": [
        \(basic.joined(separator: ",\n"))
          ],
          "extension": [
        \(ext.joined(separator: ",\n"))
          ],
          "escape": 27,
          "safe": [\(safe.joined(separator: ", "))],
          "max_plain_septets": \(SMSProtocol.maxPlainSeptets),
          "message_length": \(SMSProtocol.messageLength)
        }
        """
    }
}
