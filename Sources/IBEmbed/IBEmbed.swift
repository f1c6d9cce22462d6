// IBEmbed: work in progress.
