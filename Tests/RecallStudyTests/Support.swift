import Foundation
@testable import RecallStudy

/// The fixtures folder copied into the test bundle.
func fixture(_ name: String) -> URL {
    Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil)!
}

func fixtureText(_ name: String) -> String {
    try! String(contentsOf: fixture(name), encoding: .utf8)
}

func studyStrings() throws -> StringSet {
    try StringSet.load(fixture("strings.txt"), display: "strings.txt")
}

/// Parses a log written inline in a test.
func parseLog(_ text: String, file: String = "t.jsonl") throws -> SessionLog {
    try NativeLog.parse(Data(text.utf8), file: file)
}

let header =
    // BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
    #"{"type":"session","format":"dossier-recall/1","participant":"P1","strings":["abc123","Qx,9!z","m3)61fHw","ua7t?C2#","p4d46*3TXY","q80<u?c2mv","d51)u4;X3wrf","6n04%Ei'Hm3V","m#o)fp^2aRf207","4i_55fQ$2Mnh30"]}"#
    // END DATA TABLE

/// Runs `body` and returns the RecallError it throws (nil if none).
func recallError(_ body: () throws -> Void) -> RecallError? {
    do { try body() } catch let e as RecallError { return e } catch { return nil }
    return nil
}
