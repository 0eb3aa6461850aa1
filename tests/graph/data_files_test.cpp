// Tests of data_files.cpp: reading the files users name within bounds, and atomic writes.
#include "tilesat/graph/data_files.h"
#include "tilesat/graph/diagnostic.h"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <iterator>
#include <sys/resource.h>

namespace tilesat {
namespace {

using ::testing::HasSubstr;

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("tilesat_data_files_test_" + name)).string();
}

std::string content(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(DataFiles, ReadsAreBounded) {
  const std::string path = temp_path("bounded");
  write_file_atomically(path, {"0123456789"}, "file");
  EXPECT_EQ(read_user_file(path, "file", 10), "0123456789");
  try {
    read_user_file(path, "file", 9);
    FAIL() << "a file over the bound was read";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("the file is longer than 9 bytes"));
  }
  std::filesystem::remove(path);
}

// A write that fails part-way (here the file-size limit stands in for a full disk) leaves the
// file it would replace whole, and no temporary file behind.
TEST(DataFiles, AFailedWriteLeavesTheOldFileWhole) {
  const std::string path = temp_path("atomic");
  write_file_atomically(path, {"old content"}, "file");
  struct rlimit saved {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto* previous = std::signal(SIGXFSZ, SIG_IGN); // the write fails with EFBIG instead
  struct rlimit small = saved;
  small.rlim_cur = 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string error;
  try {
    write_file_atomically(path, {std::string(4096, 'x')}, "program");
  } catch (const Error& e) {
    error = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &saved);
  std::signal(SIGXFSZ, previous);
  EXPECT_THAT(error, HasSubstr("cannot write the program"));
  EXPECT_EQ(content(path), "old content");
  for (const auto& e :
       std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
    EXPECT_THAT(e.path().string(), ::testing::Not(HasSubstr("tilesat_data_files_test_atomic.tmp")));
  std::filesystem::remove(path);
}

// A symlink where the output goes is replaced by the new file; its target keeps its content.
TEST(DataFiles, ASymlinkIsReplacedNotFollowed) {
  const std::string target = temp_path("target"), link = temp_path("link");
  write_file_atomically(target, {"keep"}, "file");
  std::filesystem::remove(link);
  std::filesystem::create_symlink(target, link);
  write_file_atomically(link, {"new"}, "file");
  EXPECT_FALSE(std::filesystem::is_symlink(link));
  EXPECT_EQ(content(link), "new");
  EXPECT_EQ(content(target), "keep");
  std::filesystem::remove(link);
  std::filesystem::remove(target);
}

} // namespace
} // namespace tilesat
