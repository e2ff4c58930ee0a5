// `Publisher.isJSON` (JSONDecoder, which replaced JSONSerialization so the binary
// carries no ICU) tells a whole JSON text from a cut or broken one as JSONSerialization did.
import Foundation
import Testing
@testable import DossierKit

@Test func isJSONAgreesWithJSONSerializationOnWholeAndCutManifests() throws {
    // BEGIN DATA TABLE: one manifest as the publisher reads it
    let whole = #"{"format":1,"files":[{"path":"a b/é.html","sha256":"00ff","size":12}],"note":"\u00e9\n","x":null,"t":true,"n":-1.5e3}"#
    // END DATA TABLE
    // Not compared: complete texts whose only fault is inside a string or number (`"\x"`, a raw
    // tab, `01`, `1e`, a lone `\ud800`): JSONDecoder checks those only when a value is
    // decoded, so isJSON calls them whole; the manifest decoder then refuses them.
    var samples = ["{}", "{\"a\":", "{\"a\":1}", "{\"a\":1}x", "{\"a\":[1,2,]}", " {\"a\":1} ", "{\"a\":NaN}"]
    for i in 0...whole.utf8.count { samples.append(String(decoding: Array(whole.utf8).prefix(i), as: UTF8.self)) }
    for s in samples {
        let data = Data(s.utf8)
        let reference = (try? JSONSerialization.jsonObject(with: data)) != nil
        #expect(Publisher.isJSON(data) == reference, "\(s)")
    }
}
