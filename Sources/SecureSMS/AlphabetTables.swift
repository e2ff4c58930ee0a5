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
        let basic = GSMAlphabet.basic.enumerated().map { "    {\"code\": \($0.offset), \"scalar\": \"\(hex($0.element))\"}" }
        let ext = GSMAlphabet.extensionTable.sorted { $0.key < $1.key }.map { "    {\"code\": \($0.key), \"scalar\": \"\(hex($0.value))\"}" }
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
