// The loose number and boolean reads of export JSON (JSONFields.swift) against what
// Foundation's JSONSerialization + NSNumber gave the importers before, for the same text.
import Foundation
import JSONLines
import Testing
@testable import Vault

@Suite struct JSONFieldsTests {
    static let literals = ["0", "1", "-1", "2", "1.0", "0.0", "-0", "-0.0", "1.5", "100", "1e2", "1E2", "2.5e-3", "0.1",
                           "123456789012.5", "9007199254740993", "-42", "1e20", "1e-7", "3.0", "true", "false", "null",
                           "\"1\"", "\"true\"", "[]", "{}", "4611686018427387904", "1e16", "12.000"]

    @Test func numbersAndBooleansConvertAsNSNumberDid() throws {
        for lit in Self.literals {
            let text = "[\(lit)]"
            let node = try JSONReader.document(text, file: "t", integers: true).items![0]
            let any = (try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [Any])[0]
            #expect(node.looseInt == any as? Int, "\(lit) as Int")
            #expect(node.looseDouble == any as? Double, "\(lit) as Double")
            #expect(node.looseBool == any as? Bool, "\(lit) as Bool")
            #expect(node.numberText == (any as? NSNumber)?.stringValue, "\(lit) stringValue")
        }
    }

    @Test func listsOfObjectsOnlyAndMissingFields() throws {
        let node = try JSONReader.document(#"{"a":[{"x":"1"},{"x":2}],"b":[{"x":1},3],"c":"s"}"#, file: "t",
                                           integers: true)
        #expect(node.objects("a").count == 2)
        #expect(node.objects("b").isEmpty)
        #expect(node.objects("c").isEmpty && node.objects("zz").isEmpty)
        #expect(node.objects("a")[0].text("x") == "1" && node.objects("a")[1].text("x") == nil)
        #expect(node.object("c") == nil && node.text("c") == "s")
    }
}
