import Foundation
import Testing
@testable import DossierKit

// The lease a publish holds in its dirty marker (docs/publish.md, "The lease").

@Test func aLeaseOfARunningPublishBlocksUntilItExpires() {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let mine = PublishLease.mine(now: now)
    #expect(mine.pid == ProcessInfo.processInfo.processIdentifier && mine.machine == MachineID.current)
    #expect(mine.blocks(now: now))                                              // this process runs
    #expect(mine.blocks(now: now.addingTimeInterval(PublishLease.seconds - 1)))
    #expect(!mine.blocks(now: now.addingTimeInterval(PublishLease.seconds + 1)))  // expired
    var other = mine
    other.machine = String(repeating: "0", count: 32)
    other.pid = 999_999_999                                                     // another machine's pid
    #expect(other.blocks(now: now))
}

@Test func aLeaseOfAStoppedPublishOnThisMachineDoesNotBlock() {
    var dead = PublishLease.mine(now: Date())
    dead.pid = 999_999_999                                    // no such process
    #expect(!PublishLease.isRunning(dead.pid))
    #expect(!dead.blocks())
}

@Test func theLeaseTravelsInTheDirtyMarkerOnly() throws {
    var site = RemoteSite(files: [], etags: [:], dirty: true)
    site.lease = PublishLease.mine(now: Date(timeIntervalSince1970: 1_800_000_000))
    let bytes = try site.encoded()
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(text.contains("\"expires\" : \"2027-01-15T08:10:00Z\""))
    #expect(try RemoteSite.decode(bytes, shown: "m").lease == site.lease)
    site.dirty = false
    #expect(!String(decoding: try site.encoded(), as: UTF8.self).contains("lease"))
}

// A marker member of the wrong shape never reads as a clean manifest or as no lease.

private func marker(_ members: String) -> Data {
    Data(("{\"dossier\": \"0.1.0\", \"files\": [{\"path\": \"a.html\", \"sha256\": \""
        + String(repeating: "0", count: 64) + "\", \"size\": 1}]" + members + "}").utf8)
}

private let goodLease = "{\"expires\": \"2027-01-15T08:10:00Z\", \"id\": \"3f9a0c1b2d4e5f60\", \"machine\": \""
    + String(repeating: "a", count: 32) + "\", \"pid\": 4242}"

@Test func aMarkerWithAReadableLeaseKeepsIt() throws {
    let site = try RemoteSite.decode(marker(", \"dirty\": true, \"lease\": \(goodLease)"), shown: "m")
    #expect(site.dirty && site.leaseProblem == nil && site.lease?.pid == 4242)
    #expect(site.files.map(\.path) == ["a.html"])
}

@Test func aLeaseThatCannotBeReadIsKeptAsAProblemNotDropped() throws {
    let wrongType = goodLease.replacingOccurrences(of: "4242", with: "\"4242\"")
    let badExpiry = goodLease.replacingOccurrences(of: "2027-01-15T08:10:00Z", with: "next Tuesday")
    for lease in [wrongType, badExpiry, "7", "[]"] {
        let site = try RemoteSite.decode(marker(", \"dirty\": true, \"lease\": \(lease)"), shown: "m")
        #expect(site.dirty, "\(lease)")
        #expect(site.lease == nil && site.leaseProblem != nil, "\(lease)")
    }
}

@Test func aDirtyMemberOfTheWrongShapeReadsAsDirty() throws {
    for dirty in ["\"true\"", "1", "null", "{}"] {
        let site = try RemoteSite.decode(marker(", \"dirty\": \(dirty), \"lease\": \(goodLease)"), shown: "m")
        #expect(site.dirty && site.lease?.pid == 4242, "\(dirty)")
    }
    let clean = try RemoteSite.decode(marker(", \"dirty\": false, \"lease\": \(goodLease)"), shown: "m")
    #expect(!clean.dirty && clean.lease == nil && clean.leaseProblem == nil)
}

@Test func otherMembersOfTheWrongShapeMakeTheManifestDirtyAndKeepTheRest() throws {
    let etags = try RemoteSite.decode(marker(", \"etags\": [\"x\"], \"pending\": [\"b.html\"]"), shown: "m")
    #expect(etags.dirty && etags.etags.isEmpty && etags.pending == ["b.html"])
    #expect(etags.lease == nil && etags.leaseProblem == nil)            // not a marker: no lease counts
    let pendingText = ", \"pending\": \"b.html\", \"etags\": {\"a.html\": \"t1\"}"
    let pending = try RemoteSite.decode(marker(pendingText), shown: "m")
    #expect(pending.dirty && pending.pending.isEmpty && pending.etags == ["a.html": "t1"])
    let lease = try RemoteSite.decode(marker(", \"lease\": 7"), shown: "m")
    #expect(lease.dirty && lease.leaseProblem == nil)
    let plain = try RemoteSite.decode(marker(""), shown: "m")
    #expect(!plain.dirty && plain.leaseProblem == nil)
}
