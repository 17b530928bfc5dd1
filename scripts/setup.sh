#!/usr/bin/env bash
# Installs the Debian packages strata needs to build, test and run. Idempotent: when every package is
# already installed it does nothing (no apt-get update, no network).
set -euo pipefail
pkgs=(build-essential cmake pkg-config clang
      libvulkan-dev mesa-vulkan-drivers vulkan-validationlayers glslang-tools
      libpng-dev zlib1g-dev libcjson-dev libcglm-dev libglfw3-dev libstb-dev libcmocka-dev xvfb xauth
      libzstd-dev libgdal-dev libcurl4-openssl-dev python3
      spirv-cross emscripten chromium chromium-driver)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
