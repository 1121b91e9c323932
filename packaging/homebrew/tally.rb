# Homebrew formula for tally: each release attaches it (`brew install --formula ./tally.rb`), and
# a tap may keep it as Formula/tally.rb. It installs the package the registry serves, on
# Homebrew's Node, with shell completion for bash, zsh and fish.
# url and sha256 are the release's: the release workflow writes them with
# scripts/homebrew-formula.mjs from the tarball the registry serves once published; the ones
# below are of the last tarball packed here and are not a published one.
class Tally < Formula
  desc "See and guard what you spend on an LLM inference gateway"
  homepage "https://www.npmjs.com/package/llm-tally"
  url "https://registry.npmjs.org/llm-tally/-/llm-tally-0.1.0.tgz"
  sha256 "6a66b90d076ce9e0ca22dc7b278f18d1276312ffa4ba2bf1b736f2173e23f516"
  license "MIT"

  depends_on "node"

  def install
    system "npm", "install", *std_npm_args
    bin.install_symlink libexec.glob("bin/*")
    generate_completions_from_executable(bin/"tally", "completion")
  end

  test do
    ENV["TALLY_CONFIG_DIR"] = testpath/"state"
    assert_equal version.to_s, shell_output("#{bin}/tally --version").strip
    assert_match "\"currency\": \"CNY\"", shell_output("#{bin}/tally balance --demo --json")
  end
end
