// `Publisher.isJSON` (JSONDecoder, which replaced JSONSerialization so the binary
// carries no ICU) tells a whole JSON text from a cut or broken one as JSONSerialization did.
import Foundation
import Testing
@testable import DossierKit

@Test func isJSONAgreesWithJSONSerializationOnWholeAndCutManifests() throws {
    let whole = #"{"format":1,"files":[{"path":"a b/é.html","sha256":"00ff","size":12}],"note":"\u00e9\n","x":null,"t":true,"n":-1.5e3}"#
    var samples = ["{}", "{\"a\":", "{\"a\":1}", "{\"a\":1}x", "{\"a\":\"\\x\"}", "{\"a\":\"tab\there\"}", "{\"a\":[1,2,]}",
                   "{\"a\":01}", "{\"a\":1e}", "{\"a\":\"\\ud800\"}", " {\"a\":1} ", "{\"a\":NaN}"]
    for i in 0...whole.utf8.count { samples.append(String(decoding: Array(whole.utf8).prefix(i), as: UTF8.self)) }
    for s in samples {
        let data = Data(s.utf8)
        let reference = (try? JSONSerialization.jsonObject(with: data)) != nil
        #expect(Publisher.isJSON(data) == reference, "\(s)")
    }
}
