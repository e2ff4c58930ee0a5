#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TextBasics

extension UTF8Check {
    /// Checks `data` line by line (LF-separated; line numbers are 1-based) and throws
    /// `file:line: … is not UTF-8` at the first bad line.
    static func validate(_ data: Data, file: String) throws {
        if let (line, message) = problem(data) { throw RecallError(file: file, line: line, message) }
    }
}
