#!/usr/bin/env bash
# Makes a self-signed certificate for local HTTPS (docs/tls.md):
#   scripts/self-signed-cert.sh [DIR] [NAME]   # DIR defaults to ./tls, NAME to localhost
# writes DIR/cert.pem and DIR/key.pem (EC P-256, 30 days, subjectAltName NAME,
# 127.0.0.1 and ::1), then: stet-server --tls-cert DIR/cert.pem --tls-key DIR/key.pem
set -euo pipefail
dir="${1:-tls}"
name="${2:-localhost}"
mkdir -p "$dir"
umask 077
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
  -subj "/CN=$name" -addext "subjectAltName=DNS:$name,IP:127.0.0.1,IP:::1" \
  -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
echo "wrote $dir/cert.pem and $dir/key.pem (CN=$name, valid 30 days)"
