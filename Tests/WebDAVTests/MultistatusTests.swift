import Foundation
import Testing
@testable import WebDAV

/// A wsgidav-style answer: `ns0:` prefix, a collection, a file with an ETag, and a
/// property the server lacks listed under a 404 propstat.
// BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
private let wsgidavStyle = """
<?xml version="1.0" encoding="utf-8" ?>
<ns0:multistatus \
xmlns:ns0="DAV:"><ns0:response><ns0:href>/dav/site/</ns0:href><ns0:propstat><ns0:prop><ns0:resourcetype><ns0:collection /></ns0:resourcetype><ns0:getlastmodified>Sun, 22 Nov 2026 01:48:51 GMT</ns0:getlastmodified></ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat></ns0:response>
<ns0:response><ns0:href>/dav/site/a%20b.html</ns0:href><ns0:propstat><ns0:prop><ns0:resourcetype \
/><ns0:getcontentlength>1234</ns0:getcontentlength><ns0:getetag>16220707-1795312131-3</ns0:getetag><ns0:getlastmodified>Sun, 06 Nov 1994 08:49:37 GMT</ns0:getlastmodified></ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat>
<ns0:propstat><ns0:prop><ns0:quota /></ns0:prop><ns0:status>HTTP/1.1 404 Not \
Found</ns0:status></ns0:propstat></ns0:response></ns0:multistatus>
"""
// END DATA TABLE

/// An Apache/Nextcloud-style answer: default namespace `d:`, absolute URL hrefs, a weak
/// quoted ETag, and a 404 propstat that carries a (bogus) getetag which must be ignored.
// BEGIN DATA TABLE: a fixture kept as the program reads it, one record a line
private let apacheStyle = """
<?xml version="1.0"?>
<d:multistatus xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns">
 <d:response>
  <d:href>https://dav.example.org/dav/site/sub/</d:href>
  <d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 \
OK</d:status></d:propstat>
 </d:response>
 <d:response>
  <d:href>https://dav.example.org/dav/site/sub/x.css</d:href>
  <d:propstat><d:prop><d:resourcetype/><d:getetag>W/"abc-123"</d:getetag><oc:size>9</oc:size></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
  <d:propstat><d:prop><d:getcontentlength>99</d:getcontentlength><d:getetag>"ignored"</d:getetag></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>
 </d:response>
</d:multistatus>
"""
// END DATA TABLE

@Test func parsesPropertiesFromSuccessfulPropstatOnly() throws {
    let items = try MultistatusParser.parse(Data(wsgidavStyle.utf8))
    #expect(items.count == 2)
    #expect(items[0].href == "/dav/site/")
    #expect(items[0].resource.isCollection)
    #expect(items[1].href == "/dav/site/a%20b.html")
    #expect(items[1].resource.isCollection == false)
    #expect(items[1].resource.contentLength == 1234)
    #expect(items[1].resource.etag == "16220707-1795312131-3")
    // 784111777 = 1994-11-06T08:49:37Z (the RFC 7231 example date).
    #expect(items[1].resource.lastModified == Date(timeIntervalSince1970: 784_111_777))
}

@Test func ignoresPropertiesUnder404AndStripsWeakETags() throws {
    let items = try MultistatusParser.parse(Data(apacheStyle.utf8))
    #expect(items.count == 2)
    #expect(items[0].resource.isCollection)
    #expect(items[1].resource.etag == "abc-123")
    #expect(items[1].resource.contentLength == nil)
}

@Test func rejectsAnswersThatAreNotMultistatus() {
    #expect(throws: WebDAVError.self) { try MultistatusParser.parse(Data("<html><body>login</body></html>".utf8)) }
    #expect(throws: WebDAVError.self) { try MultistatusParser.parse(Data("not xml <".utf8)) }
}

@Test func hrefsBecomePathsRelativeToTheBase() throws {
    let client = try WebDAVClient(baseURL: URL(string: "https://dav.example.org/dav/site")!, credentials: nil)
    #expect(client.baseURL.absoluteString == "https://dav.example.org/dav/site/")
    #expect(client.relativePath(href: "/dav/site/") == "")
    #expect(client.relativePath(href: "/dav/site") == "")
    #expect(client.relativePath(href: "/dav/site/a%20b.html") == "a b.html")
    #expect(client.relativePath(href: "https://dav.example.org/dav/site/sub/x.css") == "sub/x.css")
    #expect(client.relativePath(href: "/dav/site/sub/") == "sub")
}

@Test func hrefsOutsideTheBaseOrWithDotSegmentsAreNotMembers() throws {
    let client = try WebDAVClient(baseURL: URL(string: "https://dav.example.org/dav/site/")!, credentials: nil)
    #expect(client.relativePathBelowBase(href: "/dav/site/sub/x.html") == "sub/x.html")
    #expect(client.relativePathBelowBase(href: "/dav/site") == "")
    #expect(client.relativePathBelowBase(href: "/dav/site/..a/b..") == "..a/b..")       // dots inside a name
    for outside in ["/dav/site/../x.html", "/dav/site/%2E%2E/x.html", "/dav/site/sub/../../x", "/dav/site/./x",
                    "/dav/other/x.html", "/dav/sitex/y", "https://dav.example.org/elsewhere/x", "/", ""] {
        #expect(client.relativePathBelowBase(href: outside) == nil, "\(outside)")
    }
}

@Test func hrefsThatDoNotDecodeToUTF8AreNotMembers() throws {
    let client = try WebDAVClient(baseURL: URL(string: "https://dav.example.org/dav/site/")!, credentials: nil)
    #expect(client.relativePathBelowBase(href: "/dav/site/caf%C3%A9.html") == "café.html")
    for undecodable in ["/dav/site/%FF%FE.html", "/dav/site/%C3.html", "/dav/site/a%zz.html", "/dav/site/%4"] {
        #expect(client.relativePathBelowBase(href: undecodable) == nil, "\(undecodable)")
    }
}

@Test func aUserNameInTheBaseURLIsNeverSentAndAPasswordIsRefused() throws {
    let client = try WebDAVClient(baseURL: URL(string: "http://alice@127.0.0.1:8080/s")!, credentials: nil)
    #expect(client.baseURL.absoluteString == "http://127.0.0.1:8080/s/")
    #expect(client.url("a.html").absoluteString == "http://127.0.0.1:8080/s/a.html")
    #expect(throws: WebDAVError.self) {
        try WebDAVClient(baseURL: URL(string: "http://alice:pw@127.0.0.1:8080/s/")!, credentials: nil)
    }
}

@Test func pathsArePercentEncodedPerSegment() throws {
    #expect(WebDAVClient.encode(path: "a b/c#d?.html") == "a%20b/c%23d%3F.html")
    #expect(WebDAVClient.encode(path: "/x//y/") == "x/y")
    #expect(WebDAVClient.encode(path: "café/100%.txt") == "caf%C3%A9/100%25.txt")
    let client = try WebDAVClient(baseURL: URL(string: "http://127.0.0.1:8080/s/")!, credentials: nil)
    #expect(client.url("a b/c.html").absoluteString == "http://127.0.0.1:8080/s/a%20b/c.html")
    #expect(client.url("dir", collection: true).absoluteString == "http://127.0.0.1:8080/s/dir/")
}

@Test func etagNormalisation() {
    #expect(ETag.normalize("W/\"x\"") == "x")
    #expect(ETag.normalize("\"x-1\"") == "x-1")
    #expect(ETag.normalize("x-1") == "x-1")
    #expect(ETag.quoted("x-1") == "\"x-1\"")
}

@Test func httpDatesInAllThreeForms() {
    let expected = Date(timeIntervalSince1970: 784_111_777)
    #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == expected)
    #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == expected)
    #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == expected)
    #expect(HTTPDate.parse("yesterday") == nil)
}
