"""Two tiers, as the Rust tests: `heavy` tests (the full-size checks) run only with `-m heavy`
(`./scripts/test.sh --heavy`); each keeps a reduced twin in the default tier."""


def pytest_configure(config):
    config.addinivalue_line("markers", "heavy: a full-size check; its reduced twin runs in the default tier")
    if not config.option.markexpr:
        config.option.markexpr = "not heavy"
