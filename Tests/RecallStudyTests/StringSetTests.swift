import Foundation
import Testing
@testable import RecallStudy

@Suite struct StringSetTests {
    @Test func readsTenLinesKeepingSpacesAndCommas() throws {
        let s = try StringSet.parse(Data(" a,b\r\n2\n3\n4\n5\n6\n7\n8\n9\n10 \n".utf8), file: "s.txt")
        #expect(s.strings.count == 10)
        #expect(s[number: 1] == " a,b")
        #expect(s[number: 10] == "10 ")
    }

    @Test func rejectsWrongLineCountNamingTheFile() {
        let e = recallError { _ = try StringSet.parse(Data("1\n2\n3\n4\n5\n6\n7\n8\n9\n".utf8), file: "s.txt") }
        #expect(e?.file == "s.txt")
        #expect(e?.message.contains("exactly 10 lines, found 9") == true)
        let e2 = recallError {
            _ = try StringSet.parse(Data("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n".utf8), file: "s.txt")
        }
        #expect(e2?.line == 11)
    }

    @Test func rejectsEmptyAndOverlongLinesByLine() {
        let e = recallError { _ = try StringSet.parse(Data("1\n2\n\n4\n5\n6\n7\n8\n9\n10\n".utf8), file: "s.txt") }
        #expect(e?.line == 3)
        let e2 = recallError {
            _ = try StringSet.parse(Data("1\n2\n3\n4\n123456789012345\n6\n7\n8\n9\n10\n".utf8), file: "s.txt")
        }
        #expect(e2?.line == 5)
        #expect(e2?.message.contains("15 characters") == true)
        // 14 characters is allowed.
        #expect((try? StringSet.parse(Data("1\n2\n3\n4\n12345678901234\n6\n7\n8\n9\n10".utf8), file: "s.txt")) != nil)
    }
}
