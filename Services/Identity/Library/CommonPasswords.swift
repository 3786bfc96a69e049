/// A short built-in list of the most common passwords, refused by default. It is a floor, not the ASVS
/// top-3000 list: deployments load a longer list into `PasswordPolicy.blocklist`.
public enum CommonPasswords {
    public static let builtIn: Set<String> = [
        "123456", "password", "12345678", "qwerty", "123456789", "12345", "1234", "111111", "1234567", "dragon",
        "123123", "baseball", "abc123", "football", "monkey", "letmein", "696969", "shadow", "master", "666666",
        "qwertyuiop", "123321", "mustang", "1234567890", "michael", "654321", "superman", "1qaz2wsx", "7777777",
        "121212", "000000", "qazwsx", "123qwe", "killer", "trustno1", "jordan", "jennifer", "zxcvbnm", "asdfgh",
        "hunter", "buster", "soccer", "harley", "batman", "andrew", "tigger", "sunshine", "iloveyou", "2000",
        "charlie", "robert", "thomas", "hockey", "ranger", "daniel", "starwars", "klaster", "112233", "george",
        "computer", "michelle", "jessica", "pepper", "1111", "zxcvbn", "555555", "11111111", "131313", "freedom",
        "777777", "pass", "maggie", "159753", "aaaaaa", "ginger", "princess", "joshua", "cheese", "amanda",
        "summer", "love", "ashley", "nicole", "chelsea", "biteme", "matthew", "access", "yankees", "987654321",
        "dallas", "austin", "thunder", "taylor", "matrix", "password1", "password123", "welcome", "admin",
        "qwerty123", "1q2w3e4r", "passw0rd", "p@ssw0rd", "letmein1", "welcome1", "iloveyou1", "abcdef",
        "abcd1234", "qwerty1", "football1", "baseball1", "princess1", "monkey1", "dragon1", "sunshine1",
        "12341234", "88888888", "87654321", "00000000", "11223344", "aaaaaaaa", "asdfghjk", "qwertyui",
        "1q2w3e4r5t", "zaq12wsx", "q1w2e3r4", "changeme", "secret", "foyer", "guest",
    ]
}
