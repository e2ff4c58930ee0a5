// The few system pieces Dossier took from corelibs Foundation (NSLock, Thread,
// FileHandle), on the C library, so no module needs corelibs Foundation (which links
// ICU). Same names and calls as the Foundation classes they replace.
#if canImport(FoundationEssentials)
import FoundationEssentials
import Glibc
#else
import Foundation
#endif

/// A mutual-exclusion lock (NSLock's `lock()`, `unlock()`, `withLock`).
public final class PlainLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    public init() { pthread_mutex_init(mutex, nil) }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// Runs `body` on a new detached thread (`Thread.detachNewThread`).
public func detachThread(_ body: @escaping @Sendable () -> Void) {
    final class Box { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    var thread = pthread_t()
    let started = pthread_create(&thread, &attributes, { raw in
        let box = Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue()
        box.body()
        return nil
    }, box)
    pthread_attr_destroy(&attributes)
    precondition(started == 0, "cannot start a thread (error \(started))")
}

/// Standard input, output and error as bytes (FileHandle.standardInput/Output/Error).
/// Each write first flushes what `print` has buffered for standard output, so lines keep
/// the order they were written in — on a pipe or in a file too, where `print` buffers
/// (`sms contact add` once showed its key message before the line announcing it).
public enum Stdio {
    public static func writeOutput<B: Sequence>(_ bytes: B) where B.Element == UInt8 {
        fflush(nil)   // every open output stream: print's standard output
        write(1, Array(bytes))
    }
    public static func writeError<B: Sequence>(_ bytes: B) where B.Element == UInt8 {
        fflush(nil)   // every open output stream: print's standard output
        write(2, Array(bytes))
    }

    /// Everything on standard input up to its end.
    public static func readInputToEnd() -> Data {
        var out = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = read(0, &buffer, buffer.count)
            if n > 0 { out.append(contentsOf: buffer[0..<n]); continue }
            if n < 0 && errno == EINTR { continue }
            return out
        }
    }

    private static func write(_ fd: Int32, _ bytes: [UInt8]) {
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }
}

/// An open file read or appended through its descriptor (the FileHandle calls Dossier
/// used: reading chunks, seeking, writing, syncing, closing).
public final class PlainFile {
    private var fd: Int32

    /// Opens `path` for reading; nil when it cannot be opened.
    public init?(forReadingAtPath path: String) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { return nil }
    }

    /// Opens an existing file for writing (FileHandle(forWritingTo:)).
    public init(forWritingTo url: URL) throws {
        fd = open(url.path, O_WRONLY | O_CLOEXEC)
        if fd < 0 { throw POSIXErrorCode(rawValue: errno).map { POSIXError($0) } ?? POSIXError(.EIO) }
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Up to `count` bytes (fewer only at the end of the file); empty at the end.
    public func readData(ofLength count: Int) -> Data {
        (try? read(upToCount: count)) ?? Data()
    }

    /// Up to `count` bytes (fewer only at the end of the file); nil at the end.
    public func read(upToCount count: Int) throws -> Data? {
        var out = Data()
        var buffer = [UInt8](repeating: 0, count: min(count, 1 << 20))
        while out.count < count {
            let n = Glibc.read(fd, &buffer, min(buffer.count, count - out.count))
            if n > 0 { out.append(contentsOf: buffer[0..<n]); continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw POSIXErrorCode(rawValue: errno).map { POSIXError($0) } ?? POSIXError(.EIO) }
            break
        }
        return out.isEmpty && count > 0 ? nil : out
    }

    @discardableResult
    public func seekToEnd() throws -> UInt64 {
        let at = lseek(fd, 0, SEEK_END)
        if at < 0 { throw POSIXError(.ESPIPE) }
        return UInt64(at)
    }

    public func seek(toOffset offset: UInt64) throws {
        if lseek(fd, off_t(offset), SEEK_SET) < 0 { throw POSIXError(.ESPIPE) }
    }

    /// Writes all of `data` (short writes continued).
    public func write(_ data: Data) {
        let bytes = Array(data)
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { return }
        }
    }

    public func synchronize() throws {
        if fsync(fd) != 0 { throw POSIXError(.EIO) }
    }

    public func close() throws {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }
}
