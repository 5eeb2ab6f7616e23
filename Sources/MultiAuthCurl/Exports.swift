// The sender protocol and its vocabulary live in MultiAuthHTTP, under every sender; importing
// HTTPTransport (libcurl's sender) brings them along.
@_exported import MultiAuthHTTP
