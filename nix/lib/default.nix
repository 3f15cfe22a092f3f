# The flake's pure library: builtins only, no nixpkgs, so every function here
# evaluates (and is unit tested, see nix/tests) with `nix-instantiate --eval`.
(import ./discover.nix) // (import ./select.nix)
