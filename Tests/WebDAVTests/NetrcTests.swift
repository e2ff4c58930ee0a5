import Testing
@testable import WebDAV

@Test func netrcPicksTheHostEntryThenDefault() {
    let text = """
    # comment line
    machine other.example login x password y
    machine dav.example.org
        login alice
        password "two words"
    default login anon password guest
    """
    let n = NetrcFile(text: text)
    let c = n.credentials(host: "DAV.example.org")
    #expect(c?.user == "alice")
    #expect(c?.password == "two words")
    #expect(n.credentials(host: "unknown.example")?.user == "anon")
    #expect(n.credentials(host: "dav.example.org", user: "bob") == nil)
    #expect(n.credentials(host: "unknown.example", user: "anon")?.password == "guest")
}

@Test func netrcSkipsMacroDefinitions() {
    let text = "macdef init\nmachine evil login m password p\n\nmachine h login u password q\n"
    let n = NetrcFile(text: text)
    #expect(n.credentials(host: "evil") == nil)
    #expect(n.credentials(host: "h")?.password == "q")
}

@Test func netrcWithoutPasswordGivesNothing() {
    #expect(NetrcFile(text: "machine h login u").credentials(host: "h") == nil)
}
