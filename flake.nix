{
  description = "Agent skills for Claude Code, with a benchmark harness that proves each one works";

  inputs = {
    nixpkgs.url = "github:NixOS/nixpkgs/nixos-26.05";
    home-manager = {
      url = "github:nix-community/home-manager/release-26.05";
      inputs.nixpkgs.follows = "nixpkgs";
    };
  };

  # Wiring only: the logic lives in nix/ (library, packages, dev shell,
  # home-manager module) and checks/ (one file per check).
  outputs =
    {
      self,
      nixpkgs,
      home-manager,
    }:
    let
      inherit (nixpkgs) lib;
      systems = [
        "x86_64-linux"
        "aarch64-linux"
        "x86_64-darwin"
        "aarch64-darwin"
      ];
      forAllSystems = f: lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
      built = forAllSystems (pkgs: import ./nix/packages { inherit pkgs; });
      homeModule = ./nix/home-manager/flake-module.nix;
    in
    {
      # benchcore, one package per skill (by its name), all skills together.
      packages = forAllSystems (
        pkgs:
        let
          b = built.${pkgs.stdenv.hostPlatform.system};
        in
        b.skills
        // {
          inherit (b) benchcore;
          benchmark-skill-plugin = b.benchmarkPlugin;
          skills = b.all;
          default = b.all;
        }
      );

      # `nix run .` runs benchcore; `nix run .#benchcore` too.
      apps = forAllSystems (
        pkgs:
        let
          app = {
            type = "app";
            program = lib.getExe built.${pkgs.stdenv.hostPlatform.system}.benchcore;
            meta.description = "benchcore, the benchmark's command line (plan, collect, render, validate, usage)";
          };
        in
        {
          default = app;
          benchcore = app;
        }
      );

      devShells = forAllSystems (
        pkgs:
        let
          b = built.${pkgs.stdenv.hostPlatform.system};
        in
        {
          default = pkgs.callPackage ./nix/dev-shell.nix { inherit (b) benchcore skills agents all; };
        }
      );

      homeManagerModules.default = homeModule;
      # The name home-manager's flake-parts module and newer flakes use.
      homeModules.default = homeModule;

      checks = forAllSystems (
        pkgs:
        let
          system = pkgs.stdenv.hostPlatform.system;
          b = built.${system};
        in
        # Every package is built by `nix flake check` (benchcore's build runs
        # its test suite), as package-<name>, beside the checks proper.
        lib.mapAttrs' (name: lib.nameValuePair "package-${name}") self.packages.${system}
        // {
          shell-hook = pkgs.callPackage ./checks/shell-hook.nix {
            devShell = self.devShells.${system}.default;
            inherit (b) skills agents all;
          };
          home-manager-module = pkgs.callPackage ./checks/home-manager-module.nix {
            inherit home-manager;
            module = homeModule;
          };
          benchmark-core = pkgs.callPackage ./checks/benchmark-core.nix { inherit (b) benchcore; };
        }
      );

      formatter = forAllSystems (pkgs: pkgs.nixfmt-tree);
    };
}
