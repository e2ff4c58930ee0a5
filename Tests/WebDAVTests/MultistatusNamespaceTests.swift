import Foundation
import Testing
@testable import WebDAV

/// DAV: names are matched by namespace, whatever the prefix (or none), and only there.
@Test func davNamesMatchByNamespaceUnderADefaultNamespaceAndShadowing() throws {
    let xml = """
    <multistatus xmlns="DAV:" xmlns:x="urn:other">
     <response><href>/dav/a</href><x:href>/wrong</x:href>
      <propstat><prop><getetag>"e1"</getetag><x:getetag>"no"</x:getetag></prop><status>HTTP/1.1 200 \
    OK</status></propstat>
     </response>
     <response xmlns="urn:other"><href>/not-dav</href></response>
     <x:response xmlns:x="DAV:"><x:href>/dav/b</x:href>
      <x:propstat><x:prop><x:getcontentlength>7</x:getcontentlength></x:prop><x:status>HTTP/1.1 200 \
    OK</x:status></x:propstat>
     </x:response>
    </multistatus>
    """
    let items = try MultistatusParser.parse(Data(xml.utf8))
    #expect(items.map(\.href) == ["/dav/a", "/dav/b"])
    #expect(items[0].resource.etag == "e1")
    #expect(items[1].resource.contentLength == 7)
}

@Test func multistatusWithADoctypeIsRefusedNamingTheLine() {
    let xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE m [<!ENTITY e \"x\">]>\n<d:multistatus xmlns:d=\"DAV:\"/>"
    do {
        _ = try MultistatusParser.parse(Data(xml.utf8))
        Issue.record("a DOCTYPE was accepted")
    } catch {
        #expect("\(error)".contains("line 2") && "\(error)".contains("DOCTYPE"), "\(error)")
    }
}
