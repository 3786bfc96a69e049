import FoyerAccessTokens
import Testing

@Suite("The issuer is an https URL (http on loopback only)")
struct IssuerURLTests {
    @Test(
        "Accepted: https with a host and an optional path; http on 127.0.0.0/8, ::1 or localhost",
        arguments: [
            "https://auth.example.com", "https://example.com/auth", "https://auth.example.com:8443",
            "http://127.0.0.1:7480", "http://127.8.9.10", "http://[::1]:7480", "http://localhost:7480",
        ]
    )
    func accepted(issuer: String) {
        #expect(IssuerURL.problem(with: issuer) == nil)
    }

    @Test(
        "Refused: no scheme or host, http off loopback, another scheme, user, query, fragment or a final slash",
        arguments: [
            "foyer", "", "auth.example.com", "https://", "http://auth.example.com", "http://10.0.0.7",
            "http://127.0.0.1.example.com", "ftp://auth.example.com", "https://user@auth.example.com",
            "https://auth.example.com?tenant=1", "https://auth.example.com#x", "https://auth.example.com/",
        ]
    )
    func refused(issuer: String) {
        #expect(IssuerURL.problem(with: issuer) != nil)
    }
}
