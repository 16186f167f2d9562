#include "shell/line_reader.h"

#include <histedit.h>
#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace keywise::shell {
namespace {

// The prompt libedit asks for through a plain function pointer.
thread_local std::string g_prompt;
const char* PromptFn(EditLine*) { return g_prompt.c_str(); }

volatile sig_atomic_t g_interrupted = 0;
void OnSigint(int) { g_interrupted = 1; }

}  // namespace

ReadStatus StreamLineReader::ReadLine(const std::string&, std::string* line) {
  if (!std::getline(*in_, *line)) return ReadStatus::kEof;
  if (!line->empty() && line->back() == '\r') line->pop_back();
  ++line_number_;
  return ReadStatus::kLine;
}

struct EditLineReader::Impl {
  EditLine* el = nullptr;
  History* hist = nullptr;
  HistEvent ev;
  std::string file;
  struct sigaction old_action;
};

EditLineReader::EditLineReader(std::string history_file) : impl_(new Impl) {
  impl_->file = std::move(history_file);
  impl_->el = el_init("keywise", stdin, stdout, stderr);
  impl_->hist = history_init();
  history(impl_->hist, &impl_->ev, H_SETSIZE, 1000);
  history(impl_->hist, &impl_->ev, H_SETUNIQUE, 1);
  if (!impl_->file.empty()) history(impl_->hist, &impl_->ev, H_LOAD, impl_->file.c_str());
  el_set(impl_->el, EL_HIST, history, impl_->hist);
  el_set(impl_->el, EL_PROMPT, &PromptFn);
  el_set(impl_->el, EL_EDITOR, "emacs");
  el_source(impl_->el, nullptr);  // ~/.editrc
  // SIGINT without SA_RESTART makes el_gets return with EINTR: the shell
  // then drops the statement being typed.
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &impl_->old_action);
}

EditLineReader::~EditLineReader() {
  sigaction(SIGINT, &impl_->old_action, nullptr);
  el_end(impl_->el);
  history_end(impl_->hist);
}

ReadStatus EditLineReader::ReadLine(const std::string& prompt, std::string* line) {
  g_prompt = prompt;
  g_interrupted = 0;
  int count = 0;
  const char* text = el_gets(impl_->el, &count);
  if (g_interrupted || (text == nullptr && count < 0 && errno == EINTR)) {
    g_interrupted = 0;
    el_reset(impl_->el);
    std::fputs("\n", stdout);
    return ReadStatus::kInterrupted;
  }
  if (text == nullptr || count <= 0) return ReadStatus::kEof;
  line->assign(text, count);
  while (!line->empty() && (line->back() == '\n' || line->back() == '\r')) line->pop_back();
  ++line_number_;
  return ReadStatus::kLine;
}

void EditLineReader::AddHistory(const std::string& statement) {
  history(impl_->hist, &impl_->ev, H_ENTER, statement.c_str());
  if (!impl_->file.empty()) history(impl_->hist, &impl_->ev, H_SAVE, impl_->file.c_str());
}

std::string DefaultHistoryFile() {
  const char* home = std::getenv("HOME");
  if (home == nullptr || *home == '\0') return "";
  return std::string(home) + "/.keywise_history";
}

}  // namespace keywise::shell
