# Sourced by the compat tools' run.sh: starts and stops the Cloud Spanner
# emulator on 127.0.0.1:$PORT (PORT set by the caller, one per tool, so two
# tools never share an emulator). EMULATOR_MAIN overrides where it is.
EMU=${EMULATOR_MAIN:-$(command -v emulator_main || echo /usr/lib/google-cloud-sdk/bin/cloud_spanner_emulator/emulator_main)}
[ -x "$EMU" ] || { echo "emulator_main not found (set EMULATOR_MAIN)" >&2; exit 2; }
ADDR=127.0.0.1:$PORT
emu_pid=""
stop_emulator() {
  if [ -n "$emu_pid" ]; then kill "$emu_pid" 2>/dev/null; wait "$emu_pid" 2>/dev/null; emu_pid=""; fi
}
trap stop_emulator EXIT
# start_emulator LOG: starts it, its output to LOG, and waits until it listens.
start_emulator() {
  "$EMU" --host_port "$ADDR" > "$1" 2>&1 &
  emu_pid=$!
  for _ in $(seq 1 200); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "emulator did not listen on $ADDR" >&2; return 1
}
