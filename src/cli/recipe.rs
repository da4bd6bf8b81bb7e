//! The recipe a trained model carries, read as what it is: a task model's (`glimpse train`:
//! its `config.task`) or a language model's (`glimpse train-lm`: its `data` and held-out
//! figures). Beside a model's files, or compiled in for a trained built-in.

use super::train::{recipe_path, Recipe};
use super::train_lm::LmRecipe;
use std::path::Path;

/// A recipe of either kind.
pub enum AnyRecipe {
    Task(Box<Recipe>),
    Lm(Box<LmRecipe>),
}

/// The recipe of `model` and where it was read (for messages).
pub struct Found {
    pub place: String,
    pub recipe: AnyRecipe,
}

/// The recipe of `model`: compiled in for a trained built-in, else `STEM.recipe.json` beside
/// its files. `Ok(None)`: it has none.
pub fn recipe_of(model: &str) -> Result<Option<Found>, String> {
    let (place, text) = match crate::model::builtin::recipe(model) {
        Some(text) => (
            format!("assets/models/{model}.recipe.json"),
            text.to_string(),
        ),
        None => {
            let path = recipe_path(Path::new(model));
            match std::fs::read_to_string(&path) {
                Ok(text) => (path.display().to_string(), text),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
                Err(e) => return Err(format!("could not read {}: {e}", path.display())),
            }
        }
    };
    let recipe = parse(&text, &place)?;
    Ok(Some(Found { place, recipe }))
}

/// A task recipe names `config.task`; a language model's records its `data` instead.
fn parse(text: &str, place: &str) -> Result<AnyRecipe, String> {
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("the recipe {place} is not JSON: {e}"))?;
    let unreadable = |e: serde_json::Error| format!("unreadable recipe {place}: {e}");
    if value["config"].get("task").is_some() {
        serde_json::from_value(value)
            .map(|r| AnyRecipe::Task(Box::new(r)))
            .map_err(unreadable)
    } else if value.get("data").is_some() {
        serde_json::from_value(value)
            .map(|r| AnyRecipe::Lm(Box::new(r)))
            .map_err(unreadable)
    } else {
        Err(format!(
            "the recipe {place} names no task (no `config.task`) and is not a language model's \
             (no `data`): pass --task"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every trained built-in has a recipe that reads as its kind: the two English models
    /// are language models, the rest task models.
    #[test]
    fn every_trained_builtin_has_a_readable_recipe() {
        for name in crate::model::builtin::TRAINED {
            let found = recipe_of(name).unwrap().expect(name);
            let is_lm = matches!(found.recipe, AnyRecipe::Lm(_));
            assert_eq!(is_lm, name.starts_with("sotu"), "{name}");
        }
    }

    #[test]
    fn a_recipe_without_a_task_or_data_says_so() {
        let err = parse(r#"{"command": "glimpse train"}"#, "x.recipe.json")
            .err()
            .unwrap();
        assert!(err.contains("names no task"), "{err}");
        let err = parse("{", "x.recipe.json").err().unwrap();
        assert!(err.contains("not JSON"), "{err}");
    }
}
