# bash completion for opsampler's commands: the long options each command
# lists in its --help (so they never fall behind the programs), and file
# names elsewhere. Installed under every command's name in
# share/bash-completion/completions/.
_opsampler() {
	local cur=${COMP_WORDS[COMP_CWORD]} opts
	if [[ $cur == --*=* ]]; then
		# a value its --help lists as "--NAME=a|b|c" (or "--NAME[=a|b]")
		opts=$("${COMP_WORDS[0]}" --help 2>/dev/null |
			grep -o -- "${cur%%=*}\[\{0,1\}=[a-z][a-z|-]*|[a-z|-]*" | head -n 1)
		opts=${opts#*=}
		COMPREPLY=($(compgen -P "${cur%%=*}=" -W "${opts//|/ }" -- "${cur#*=}"))
	elif [[ $cur == -* ]]; then
		opts=$("${COMP_WORDS[0]}" --help 2>/dev/null |
			grep -o -- '--[a-z][a-z-]*=\{0,1\}' | sort -u)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		[[ ${#COMPREPLY[@]} -eq 1 && ${COMPREPLY[0]} == *= ]] && compopt -o nospace 2>/dev/null
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _opsampler opcontrol oprofiled operf ophelp opreport opexport \
	opannotate oparchive opgprof optop
