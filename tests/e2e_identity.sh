#!/usr/bin/env bash
# End-to-end tests of a run's identity (docs/commands/ingest.md): commit and
# branch from the CI's variables (GitHub pull requests, GitLab merge
# requests, Buildkite, Jenkins' origin/main), from the git work tree ingest
# runs in, --commit HEAD or any ref resolved by git, the warnings for a run
# stored without a commit, for a CI commit that is no commit and for a
# re-ingest under another identity (naming only the fields given),
# lowercased shas, no git run from the current directory,
# ingest --format json for the run id, and pin --if-missing.  The git
# repository is made in the private directory (no network, local config);
# GIT_CEILING_DIRECTORIES (e2e-lib.sh) keeps git out of the project's own
# checkout.
. "$(dirname "$0")/e2e-lib.sh"
S=$SCOPEDB
M=$MKPROFILE
db=$E2E_DIR/id.sqlite
ident() { sql "$db" "select coalesce(commit_sha, '-') || ' ' || coalesce(branch, '-') from runs where source_path = '$1'"; }
n=0
prof() { n=$((n + 1)); "$M" --ranks 1 --regions a,b --calls 5 --seed "$n" "$1" >/dev/null; }

# --- outside any repository, no CI: stored without a commit, with a warning --
if tcase setup-outside-repo; then
prof plain.h5
prof plain2.h5
expect 0 "no commit" $S ingest --db "$db" plain.h5 plain2.h5
equals "no commit stdout" "$out" "run 1: plain.h5: 1 rank, 2 regions, 10 calls
run 2: plain2.h5: 1 rank, 2 regions, 10 calls"
equals "no commit warning, once, of both runs" "$err" \
	"scopedb: warning: 2 runs (1 to 2) stored without a commit: pass --commit or run inside a git work tree"
equals "no commit stored" "$(ident plain.h5)" "- -"
expect_error "ref outside a repository" \
	"^scopedb: cannot resolve --commit 'HEAD': not in a git work tree \(give the commit as 4 to 64 hex digits\)$" \
	$S ingest --db "$db" --commit HEAD plain.h5
prof hexonly.h5
expect 0 "unknown hex sha kept" $S ingest --db "$db" --commit 7e57ab1e hexonly.h5
equals "hex kept" "$(ident hexonly.h5)" "7e57ab1e -"
equals "hex no warning" "$err" ""

fi

# --- CI variables -------------------------------------------------------------
if tcase ci-variables; then
prof gh-pr.h5
GITHUB_SHA=1111111111111111111111111111111111111111 GITHUB_REF_NAME=42/merge GITHUB_HEAD_REF=feature \
	GITHUB_EVENT_NAME=pull_request expect 0 "github pr" $S ingest --db "$db" gh-pr.h5
equals "github pr: head branch" "$(ident gh-pr.h5)" "1111111111111111111111111111111111111111 feature"
prof gh-push.h5
GITHUB_SHA=2222222222222222222222222222222222222222 GITHUB_REF_NAME=main GITHUB_HEAD_REF= \
	expect 0 "github push" $S ingest --db "$db" gh-push.h5
equals "github push" "$(ident gh-push.h5)" "2222222222222222222222222222222222222222 main"
prof gl-mr.h5
CI_COMMIT_SHA=3333333333333333333333333333333333333333 CI_COMMIT_REF_NAME=refs/merge-requests/7/head \
	CI_MERGE_REQUEST_SOURCE_BRANCH_NAME=fix-io expect 0 "gitlab mr" $S ingest --db "$db" gl-mr.h5
equals "gitlab mr: source branch" "$(ident gl-mr.h5)" "3333333333333333333333333333333333333333 fix-io"
prof bk.h5
BUILDKITE_COMMIT=4444444 BUILDKITE_BRANCH=release expect 0 "buildkite" $S ingest --db "$db" bk.h5
equals "buildkite" "$(ident bk.h5)" "4444444 release"
prof jenkins.h5
GIT_COMMIT=5555555 GIT_BRANCH=origin/main expect 0 "jenkins" $S ingest --db "$db" jenkins.h5
equals "jenkins: origin/ stripped" "$(ident jenkins.h5)" "5555555 main"
prof jenkins2.h5
GIT_COMMIT=6666666 GIT_BRANCH=refs/heads/dev expect 0 "jenkins refs/heads" $S ingest --db "$db" jenkins2.h5
equals "jenkins: refs/heads/ stripped" "$(ident jenkins2.h5)" "6666666 dev"
# a tag build: the tag is no branch (stored without one)
prof gh-tag.h5
GITHUB_SHA=8888888 GITHUB_REF_NAME=v1.2.3 GITHUB_REF_TYPE=tag GITHUB_HEAD_REF= \
	expect 0 "github tag build" $S ingest --db "$db" gh-tag.h5
equals "github tag build: no branch" "$(ident gh-tag.h5)" "8888888 -"
prof gh-tag2.h5
GITHUB_SHA=8888889 GITHUB_REF_NAME=v1.2.4 GITHUB_REF=refs/tags/v1.2.4 GITHUB_HEAD_REF= \
	expect 0 "github tag build (GITHUB_REF)" $S ingest --db "$db" gh-tag2.h5
equals "github tag build (GITHUB_REF): no branch" "$(ident gh-tag2.h5)" "8888889 -"
prof gl-tag.h5
CI_COMMIT_SHA=9999999 CI_COMMIT_REF_NAME=v2.0 CI_COMMIT_TAG=v2.0 \
	expect 0 "gitlab tag pipeline" $S ingest --db "$db" gl-tag.h5
equals "gitlab tag pipeline: no branch" "$(ident gl-tag.h5)" "9999999 -"
prof bk-tag.h5
BUILDKITE_COMMIT=9999998 BUILDKITE_BRANCH=v3 BUILDKITE_TAG=v3 \
	expect 0 "buildkite tag build" $S ingest --db "$db" bk-tag.h5
equals "buildkite tag build: no branch" "$(ident bk-tag.h5)" "9999998 -"

# a CI commit that is no commit: named, and the advice names the variable
prof gh-bad.h5
GITHUB_SHA=zzz GITHUB_REF_NAME=main expect 0 "github bad sha" $S ingest --db "$db" gh-bad.h5
equals "bad sha warnings" "$err" "scopedb: warning: GITHUB_SHA 'zzz' is not a commit; ignored
scopedb: warning: run $(sql "$db" "select id from runs where source_path = 'gh-bad.h5'") stored without a commit: pass --commit or set GITHUB_SHA to a commit"
equals "bad sha: branch kept" "$(ident gh-bad.h5)" "- main"
# a CI's branch without its commit (git is not asked in a CI): the advice
# names the commit variable of that CI, not a work tree
prof gh-nosha.h5
GITHUB_REF_NAME=main expect 0 "github branch, no sha" $S ingest --db "$db" gh-nosha.h5
equals "no sha warning" "$err" "scopedb: warning: run $(sql "$db" "select id from runs where source_path = 'gh-nosha.h5'") stored without a commit: pass --commit or set GITHUB_SHA beside GITHUB_REF_NAME"
prof jk-nosha.h5
GIT_BRANCH=origin/main expect 0 "jenkins branch, no commit" $S ingest --db "$db" jk-nosha.h5
contains "jenkins: its commit variable" "$err" "set GIT_COMMIT beside GIT_BRANCH"
# a CI branch a store cannot hold (not UTF-8, too long): named with its
# variable, and the run stored without it; --branch's own is refused
prof gh-badbranch.h5
GITHUB_SHA=7777777 GITHUB_HEAD_REF=$'x\xff' expect 0 "github bad branch" $S ingest --db "$db" gh-badbranch.h5
equals "bad branch warning" "$err" "scopedb: warning: branch 'x\xff' (from GITHUB_HEAD_REF) is not valid UTF-8; the run is stored without a branch (give one with --branch)"
equals "bad branch: commit kept" "$(ident gh-badbranch.h5)" "7777777 -"
prof gh-longbranch.h5
GITHUB_SHA=7777778 GITHUB_HEAD_REF=$(printf '%2001s' | tr ' ' b) expect 0 "github long branch" $S ingest --db "$db" gh-longbranch.h5
contains "long branch warning" "$err" "(from GITHUB_HEAD_REF) is too long for a store; the run is stored without a branch"
expect_err 2 "--branch not UTF-8" "scopedb: invalid branch 'x\xff': not valid UTF-8 (a store holds UTF-8 text only)" \
	$S ingest --db "$db" --branch $'x\xff' gh-badbranch.h5
# shas are stored lowercased (selectors match lowercase)
prof upper.h5
GITHUB_SHA=ABCDEF0123456789ABCDEF0123456789ABCDEF01 GITHUB_REF_NAME=main \
	expect 0 "github upper sha" $S ingest --db "$db" upper.h5
equals "upper sha lowercased" "$(ident upper.h5)" "abcdef0123456789abcdef0123456789abcdef01 main"
expect 0 "select by the lowercase sha" $S show commit:abcdef0 --db "$db"
prof upper2.h5
expect 0 "--commit upper" $S ingest --db "$db" --commit 7E57AB1F upper2.h5
equals "--commit lowercased" "$(ident upper2.h5)" "7e57ab1f -"
# commit prefixes match in any case, as git takes BB02 for bb02 (issue 29);
# also a commit stored upper case (by an older scopedb or the library)
u2=$(sql "$db" "select id from runs where source_path = 'upper2.h5'")
for sel in commit:7E57AB1F commit:7e57AB1F 7E57AB1F 7E57ab1f; do
	run $S show "$sel" --db "$db" --format json
	equals "show $sel" "$(printf '%s' "$out" | jq -r .run.id)" "$u2"
done
run $S runs --db "$db" --commit 7E57AB1F --format json
equals "runs --commit 7E57AB1F" "$(printf '%s' "$out" | jq -c '[.[].id]')" "[$u2]"
sqlite3 "$db" "update runs set commit_sha = 'ABCDEF0123456789ABCDEF0123456789ABCDEF01' where source_path = 'upper.h5'"
u1=$(sql "$db" "select id from runs where source_path = 'upper.h5'")
for sel in commit:abcdef0 ABCDEF0123 abcdef0123~0; do
	run $S show "$sel" --db "$db" --format json
	equals "show $sel (stored upper case)" "$(printf '%s' "$out" | jq -r .run.id)" "$u1"
done
run $S runs --db "$db" --commit abcDEF --format json
equals "runs --commit abcDEF (stored upper case)" "$(printf '%s' "$out" | jq -c '[.[].id]')" "[$u1]"

fi

# --- a git work tree ----------------------------------------------------------
if tcase work-tree; then
mkdir repo
(cd repo && git init -q -b trunk . && git config user.email ci@example.com &&
	git config user.name ci && git config commit.gpgsign false &&
	echo 1 >f && git add f && git commit -q -m one && git tag v1 &&
	echo 2 >f && git commit -q -am two) >/dev/null 2>&1 || bad "git repository set-up"
head=$(git -C repo rev-parse HEAD)
v1=$(git -C repo rev-parse v1)
prof repo/r1.h5
run bash -c "cd repo && $S ingest --db '$db' r1.h5"
equals "work tree exit" "$rc" 0
equals "work tree: no warning" "$err" ""
equals "work tree: HEAD and branch" "$(ident r1.h5)" "$head trunk"
# a repository git cannot read: stored without a commit, and git's cause
cp repo/.git/config repo-config.bak
printf '[core\n[[[' >repo/.git/config
prof repo/rbroken.h5
run bash -c "cd repo && $S ingest --db '$db' rbroken.h5"
cp repo-config.bak repo/.git/config
equals "unreadable repository: stored" "$rc" 0
contains "unreadable repository: git's cause" "$err" \
	"stored without a commit: pass --commit or let git read the repository (git says: bad config line 1 in file .git/config)"
# a tag named like the branch: still the branch's name ("symbolic-ref
# --short" would say heads/trunk)
git -C repo tag trunk
prof repo/r1t.h5
run bash -c "cd repo && $S ingest --db '$db' r1t.h5"
equals "tag named like the branch" "$(ident r1t.h5)" "$head trunk"
git -C repo tag -d trunk >/dev/null
run bash -c "cd repo && $S ingest --db '$db' --branch '' r1t.h5"
equals "empty --branch: exit" "$rc" 2
equals "empty --branch: message" "$err" \
	"scopedb: empty --branch: name the branch, or leave the option out for the work tree's"
prof repo/r2.h5
run bash -c "cd repo && $S ingest --db '$db' --commit HEAD r2.h5"
equals "--commit HEAD" "$(ident r2.h5)" "$head trunk"
prof repo/r3.h5
run bash -c "cd repo && $S ingest --db '$db' --commit v1 r3.h5"
equals "--commit tag: its sha, no branch" "$(ident r3.h5)" "$v1 -"
prof repo/r4.h5
run bash -c "cd repo && $S ingest --db '$db' --commit ${v1:0:7} --branch b r4.h5"
equals "abbreviated sha resolved" "$(ident r4.h5)" "$v1 b"
run bash -c "cd repo && $S ingest --db '$db' --commit no-such-branch r4.h5"
equals "unknown ref exit" "$rc" 2
equals "unknown ref message" "$err" \
	"scopedb: cannot resolve --commit 'no-such-branch': not a commit in this git repository"
# a value of 2,001 bytes: quoted short, the cause said (it was cut off)
long=$(printf 'x%.0s' $(seq 2001))
run bash -c "cd repo && $S ingest --db '$db' --commit $long r4.h5"
equals "long ref message" "$err" \
	"scopedb: cannot resolve --commit '$(printf 'x%.0s' $(seq 192))...': not a commit in this git repository"
prof repo/r5.h5
run bash -c "cd repo && GIT_COMMIT=7777777 GIT_BRANCH=origin/main $S ingest --db '$db' r5.h5"
equals "CI variables win over the work tree" "$(ident r5.h5)" "7777777 main"
prof repo/nogit.h5
run bash -c "cd repo && PATH=/nonexistent $S ingest --db '$db' nogit.h5"
equals "no git: stored" "$rc" 0
equals "no git: no commit" "$(ident nogit.h5)" "- -"
contains "no git: warning" "$err" "stored without a commit"
# git is never run from the current directory or a relative PATH entry
printf '#!/bin/sh\ntouch planted-ran\necho 1234abcd\n' >repo/git
chmod +x repo/git
prof repo/planted.h5
run bash -c "cd repo && PATH=:.:/nonexistent $S ingest --db '$db' planted.h5"
equals "planted git: stored" "$rc" 0
[ -e repo/planted-ran ] && bad "a git in the current directory ran" || ok
equals "planted git: no commit" "$(ident planted.h5)" "- -"
rm -f repo/git
git -C repo checkout -q --detach HEAD
prof repo/r6.h5
run bash -c "cd repo && $S ingest --db '$db' r6.h5"
equals "detached HEAD: commit, no branch" "$(ident r6.h5)" "$head -"
equals "detached HEAD: no warning" "$err" ""

fi

# --- re-ingest under another identity ------------------------------------------
if tcase reingest; then
if [ "$(ident jenkins.h5)" = "" ]; then # as ci-variables left it
	prof jenkins.h5
	GIT_COMMIT=5555555 GIT_BRANCH=origin/main $S ingest --db "$db" jenkins.h5 >/dev/null 2>&1
fi
expect 0 "same file, other commit" $S ingest --db "$db" --commit abc1234 --branch dev --label x jenkins.h5
jid=$(sql "$db" "select id from runs where source_path = 'jenkins.h5'")
equals "reingest stdout" "$out" "jenkins.h5: already stored as run $jid"
equals "reingest warning" "$err" \
	"scopedb: warning: 'jenkins.h5' already stored as run $jid with commit 5555555, not abc1234, branch main, not dev, label example, not x; keeping it"
equals "identity kept" "$(ident jenkins.h5)" "5555555 main"
expect 0 "same commit abbreviated" $S ingest --db "$db" --commit 55555 jenkins.h5
equals "same commit: no warning" "$err" ""
expect 0 "same file, commit for a run without one" $S ingest --db "$db" --commit abc1234 plain.h5
equals "reingest no commit" "$err" \
	"scopedb: warning: 'plain.h5' already stored as run 1 with no commit, not abc1234; keeping it"
expect 0 "reingest: only the fields asked for" $S ingest --db "$db" --branch dev jenkins.h5
equals "reingest branch only" "$err" \
	"scopedb: warning: 'jenkins.h5' already stored as run $jid with branch main, not dev; keeping it"
# a CI's commit and branch are not the user's request: no warning
GIT_COMMIT=9999999 GIT_BRANCH=origin/other expect 0 "reingest in CI" $S ingest --db "$db" jenkins.h5
equals "reingest in CI: no warning" "$err" ""
# --meta is not applied to a stored run either: said of the first key the
# run lacks or holds otherwise, not of one it holds already
expect 0 "reingest: a new --meta" $S ingest --db "$db" --meta newkey=1 --meta label=example \
	jenkins.h5
equals "reingest meta warning" "$err" \
	"scopedb: warning: 'jenkins.h5' already stored as run $jid with no metadata newkey, not 1; keeping it"
equals "reingest meta not applied" "$(sql "$db" "select count(*) from run_metadata where run_id = $jid and key = 'newkey'")" "0"
expect 0 "reingest: another --meta value" $S ingest --db "$db" --meta label=night jenkins.h5
equals "reingest meta other value" "$err" \
	"scopedb: warning: 'jenkins.h5' already stored as run $jid with metadata label example, not night; keeping it"
expect 0 "reingest: the same --meta" $S ingest --db "$db" --meta label=example jenkins.h5
equals "reingest same meta: no warning" "$err" ""

fi

# --- the run id for a CI job; pin --if-missing ----------------------------------
if tcase pin-if-missing; then
prof ci.h5
run $S ingest --db "$db" --commit 8888888 --format json ci.h5
run_id=$(printf '%s' "$out" | jq -r '.[0].run')
equals "json run id" "$run_id" "$(sql "$db" "select id from runs where source_path = 'ci.h5'")"
expect 0 "pin if missing" $S pin baseline "$run_id" --db "$db" --if-missing
equals "pin made" "$out" "pinned 'baseline' to run $run_id"
expect 0 "pin if missing again" $S pin baseline 1 --db "$db" --if-missing
equals "pin left" "$out" "pin 'baseline' exists (run $run_id); left as is"
expect 0 "pin if missing same run" $S pin baseline "$run_id" --db "$db" --if-missing
equals "pin same run" "$out" "pin 'baseline' already on run $run_id"
equals "pin unchanged" "$(sql "$db" "select run_id from pins where name = 'baseline'")" "$run_id"
expect 0 "pin moves without it" $S pin baseline 1 --db "$db"
equals "pin moved" "$out" "moved pin 'baseline' from run $run_id to run 1"

fi

# --- a hostile repository: no command from its configuration runs (issue 29) -----
# evil_repo DIR MARKS: a clone of origin/ whose configuration names a command
# (an absolute touch of MARKS/KEY, so that no PATH can hide it) for every key
# that can run one, whose hooks (.git/hooks and core.hooksPath) all touch
# MARKS/hook-NAME, and that is a partial clone of three promisor remotes
# (ext::, ssh:// and a local path, each allowed by the repository's own
# protocol.X.allow=always) with HEAD's commit and every other object missing:
# reading HEAD^{commit} makes a plain git fetch it, running the ext command,
# core.sshCommand and remote.origin.uploadpack.
if tcase hostile-repo; then
T=$(command -v touch)
REAL_GIT=$(command -v git)
mkdir origin
(cd origin && git init -q -b main . && echo 1 >f && git add f &&
	git -c user.email=t@example.com -c user.name=t commit -q -m one && git tag v1 &&
	echo 2 >f && git -c user.email=t@example.com -c user.name=t commit -q -am two) \
	>/dev/null 2>&1 || bad "origin repository set-up"
evil_repo() {
	local dir=$1 m=$2 h k
	mkdir -p "$m"
	git clone -q --no-local origin "$dir" >/dev/null 2>&1 || bad "clone $dir"
	(
		cd "$dir" || exit 1
		c() { git config "$@"; }
		c core.repositoryformatversion 1
		c extensions.partialClone origin
		c remote.aext.url "ext::$T $m/ext-transport"
		c remote.aext.promisor true
		c remote.bssh.url "ssh://example.invalid/x"
		c remote.bssh.promisor true
		c remote.origin.promisor true
		c remote.origin.uploadpack "$T $m/uploadpack; git-upload-pack"
		c remote.origin.receivepack "$T $m/receivepack"
		for p in ext ssh file git http https; do c "protocol.$p.allow" always; done
		c core.sshCommand "$T $m/sshCommand"
		c core.gitProxy "$T $m/gitProxy"
		c core.fsmonitor "$T $m/fsmonitor"
		c core.hooksPath "$PWD/.git/myhooks"
		c core.pager "$T $m/pager"
		c pager.rev-parse "$T $m/pager-rev-parse"
		c pager.symbolic-ref "$T $m/pager-symbolic-ref"
		c alias.rev-parse "!$T $m/alias"
		c alias.symbolic-ref "!$T $m/alias"
		c credential.helper "!$T $m/credential-helper"
		c core.askPass "$T $m/askPass"
		c core.editor "$T $m/editor"
		c sequence.editor "$T $m/sequence-editor"
		c diff.external "$T $m/diff-external"
		c diff.x.textconv "$T $m/textconv"
		c filter.x.clean "$T $m/filter-clean"
		c filter.x.smudge "$T $m/filter-smudge"
		c filter.x.process "$T $m/filter-process"
		c merge.x.driver "$T $m/merge-driver"
		c gpg.program "$T $m/gpg"
		c log.showSignature true
		c core.alternateRefsCommand "$T $m/alternateRefsCommand"
		c uploadpack.packObjectsHook "$T $m/packObjectsHook"
		printf '* filter=x diff=x merge=x\n' >.gitattributes
		mkdir -p .git/myhooks
		for k in applypatch-msg pre-applypatch post-applypatch pre-commit \
			pre-merge-commit prepare-commit-msg commit-msg post-commit pre-rebase \
			post-checkout post-merge pre-push pre-receive update proc-receive \
			post-receive post-update reference-transaction push-to-checkout \
			pre-auto-gc post-rewrite post-index-change fsmonitor-watchman; do
			printf '#!/bin/sh\n%s %s/hook-%s\n' "$T" "$m" "$k" >".git/hooks/$k"
			printf '#!/bin/sh\n%s %s/hooksPath-%s\n' "$T" "$m" "$k" >".git/myhooks/$k"
			chmod +x ".git/hooks/$k" ".git/myhooks/$k"
		done
		rm -rf .git/objects/pack/* .git/objects/??
	) || bad "evil repository set-up $dir"
}
marks() { (cd "$1" && ls | tr '\n' ' '); }
# the repository is hostile indeed: a plain git runs the commands it names
evil_repo plain "$E2E_DIR/marks-plain"
(cd plain && git rev-parse --verify -q 'HEAD^{commit}' && git rev-parse :f) >/dev/null 2>&1
equals "a plain git in the hostile repository runs its commands" "$(marks marks-plain)" \
	"ext-transport fsmonitor sshCommand uploadpack "

evil_repo evil "$E2E_DIR/marks"
E=$E2E_DIR/evil
prof evil/e1.h5
# ingest_evil DESC ARGS...: ingest in the hostile repository, nothing run
ingest_evil() {
	local desc=$1
	shift
	run bash -c 'cd "$0" && exec "$@"' "$E" $S ingest --db "$db" "$@" e1.h5
	equals "$desc: no command of the repository ran" "$(marks "$E2E_DIR/marks")" ""
}
ingest_evil "HEAD's missing commit (no CI)"
equals "HEAD's missing commit: exit" "$rc" 0
contains "HEAD's missing commit: stored without a commit" "$err" "stored without a commit"
ingest_evil "--commit 1a2b3c4" --commit 1a2b3c4
equals "--commit 1a2b3c4: kept as a sha" "$rc" 0
ingest_evil "--commit HEAD" --commit HEAD
equals "--commit HEAD: not resolved" "$err" \
	"scopedb: cannot resolve --commit 'HEAD': not a commit in this git repository"
ingest_evil "--commit v1" --commit v1
ingest_evil "--commit :f (the index)" --commit :f
ingest_evil "--commit HEAD~1" --commit HEAD~1
ingest_evil "--commit main" --commit main
ingest_evil "--commit=--upload-pack=..." "--commit=--upload-pack=$T $E2E_DIR/marks/option"
equals "--commit=--upload-pack: refused" "$err" \
	"scopedb: cannot resolve --commit '--upload-pack=$T $E2E_DIR/marks/option': not a commit in this git repository"
ingest_evil "--commit --output" "--commit=--output=$E2E_DIR/marks/output"
BUILDKITE_COMMIT=HEAD BUILDKITE_BRANCH=b ingest_evil "BUILDKITE_COMMIT=HEAD"
GITHUB_SHA=v1 ingest_evil "GITHUB_SHA=v1"
# each layer alone stops the lazy fetch: a git that drops the others
# (GIT_NO_LAZY_FETCH is git >= 2.39.4; Debian 12 had 2.39.2 before it)
layer() {
	mkdir -p "layer-$1"
	printf '#!/bin/sh\n%s\nexec %s "$@"\n' "$2" "$REAL_GIT" >"layer-$1/git"
	chmod +x "layer-$1/git"
	PATH=$E2E_DIR/layer-$1:$PATH ingest_evil "only $1"
}
layer "no program by name" "unset GIT_NO_LAZY_FETCH GIT_ALLOW_PROTOCOL"
layer "no transport" "unset GIT_NO_LAZY_FETCH GIT_EXEC_PATH; export PATH=/usr/bin:/bin"
layer "no lazy fetch" "unset GIT_ALLOW_PROTOCOL GIT_EXEC_PATH; export PATH=/usr/bin:/bin"
# a hostile branch name from the CI is stored as it is, never run
GITHUB_SHA=1111111111111111111111111111111111111111 GITHUB_HEAD_REF='$(touch${IFS}PWNED)' \
	ingest_evil "hostile GITHUB_HEAD_REF"
[ -e PWNED ] || [ -e evil/PWNED ] && bad "GITHUB_HEAD_REF ran" || ok

fi

finish
