# Types LINE and a tab into an interactive zsh (zpty) with completions/ on fpath;
# exit 0 when EXPECT appears on the terminal within 10 s.
#   zsh -f zsh-complete.zsh COMPLETIONS_DIR LINE EXPECT
setopt extendedglob
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "fpath=($1 \$fpath); autoload -Uz compinit; compinit -u -D; PS1='> '"
zpty -w z "$2"$'\t'
out=""; deadline=$((SECONDS + 10))
while (( SECONDS < deadline )); do
  zpty -rt z chunk && out+=$chunk || sleep 0.1
  clean=${out//$'\e'\[[0-9;?]#[a-zA-Z]/}
  [[ $clean == *"$3"* ]] && { zpty -d z; exit 0; }
done
zpty -d z; print -r -- "$clean" | tr -d '\r' | tail -3 >&2; exit 1
