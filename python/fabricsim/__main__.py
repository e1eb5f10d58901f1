import sys

try:
    from .cli import main
except KeyboardInterrupt:  # Ctrl-C while the CLI itself loads: nothing has been written yet
    print("interrupted: nothing was written", file=sys.stderr)
    sys.exit(130)

sys.exit(main())
