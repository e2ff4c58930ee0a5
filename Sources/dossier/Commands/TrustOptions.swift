import ArgumentParser
import WebDAV

/// `--ca-file PATH`, shared by every command that talks to a WebDAV server (publish,
/// vault sync, game ingest --from). See docs/publish.md, "Trusting a private
/// certificate authority".
struct TrustOptions: ParsableArguments {
    @Option(
        name: .customLong("ca-file"),
        help: """
            A PEM file of certificate authorities to trust for https instead of the system's (default: \
            $SSL_CERT_FILE, else the system's).
            """
    )
    var caFile: String?

    /// Client options with this trust choice.
    var clientOptions: WebDAVClient.Options { WebDAVClient.Options(caFile: caFile) }
}
